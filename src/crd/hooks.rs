//! Seams to other modules: CEL compilation of `x-kubernetes-validations`, CEL
//! validation of defaults, and OpenAPI value validation of defaults.
//!
//! CRD validation calls these exactly where the server would, so their owners plug in
//! without touching CRD validation: fill a [`Hooks`] and call
//! [`super::validate_with`].

use crate::diag::{FieldError, FieldPath};
use crate::model::schema::SchemaProps;
use crate::schema::structural::Structural;
use crate::source::Node;

use super::findings::Finding;

/// A schema node whose `x-kubernetes-validations` the server would compile now: the
/// schema is structural, its defaults are valid, and this node and everything below it
/// has no schema error.
pub struct CelRuleInput<'a> {
    /// Where the node stands (`spec.versions[0].schema.openAPIV3Schema.properties[spec]`).
    pub path: &'a FieldPath,
    pub schema: &'a SchemaProps,
    /// The version's root schema and its path, for types and cost (cardinality).
    pub root: &'a SchemaProps,
    pub root_path: &'a FieldPath,
    /// The highest ancestor below which `oldSelf` cannot be correlated (lists that are
    /// not maps, atomic maps): rules using `oldSelf` here fail with
    /// `oldSelf cannot be used on the uncorrelatable portion of the schema within <path>`.
    pub uncorrelatable: Option<&'a FieldPath>,
}

/// Compiles the rules of one node; returns the server's CEL field errors.
pub type CelRulesHook = fn(&CelRuleInput<'_>) -> Vec<Finding>;

/// Called once per version schema after all nodes (with `path == root_path`): the total
/// cost limit of the whole schema.
pub type CelTotalCostHook = fn(&CelRuleInput<'_>) -> Vec<Finding>;

/// Validates a default value against the CEL rules of the schema it stands in
/// (`path` ends in `.default`).
pub type CelDefaultHook = fn(
    schema: &Structural,
    is_resource_root: bool,
    default: &Node,
    path: &FieldPath,
) -> Vec<FieldError>;

/// OpenAPI value validation of a default (`ValidateCustomResource`): `path` ends in
/// `.default`; the errors are the server's for that value.
pub type ValueValidatorHook =
    fn(schema: &Structural, value: &Node, path: &FieldPath) -> Vec<FieldError>;

#[derive(Clone, Copy)]
pub struct Hooks {
    pub cel_rules: Option<CelRulesHook>,
    pub cel_total_cost: Option<CelTotalCostHook>,
    pub cel_default: Option<CelDefaultHook>,
    pub validate_value: ValueValidatorHook,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            cel_rules: None,
            cel_total_cost: None,
            cel_default: None,
            validate_value: super::defaults::basic_value_validation,
        }
    }
}
