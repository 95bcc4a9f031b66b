//! Seams to other modules: CEL compilation of `x-kubernetes-validations`, the CEL cost
//! limits, CEL validation of defaults, and OpenAPI value validation of defaults.
//!
//! CRD validation calls these exactly where the server would, so their owners plug in
//! without touching CRD validation: fill a [`Hooks`] and call
//! [`super::validate_with`] (or [`super::validate_with_options`]). The defaults
//! ([`Hooks::default`]) compile rules and check defaults against them with
//! [`crate::cel`] (see [`super::cel_rules`]), including the cost limits of
//! [`crate::cel::cost`].

use crate::cel::KubeVersion;
use crate::diag::{Diagnostic, FieldPath};
use crate::model::schema::SchemaProps;
use crate::schema::structural::Structural;
use crate::source::Node;

use super::findings::Finding;

/// One version's root schema, once it is structural and its defaults are valid (the
/// server's `RootCELContext`).
pub struct CelSchemaInput<'a> {
    pub schema: &'a SchemaProps,
    pub structural: &'a Structural,
    /// `spec.versions[i].schema.openAPIV3Schema`.
    pub path: &'a FieldPath,
    /// The file's text, to point into rule strings; `None` when unknown (spans then
    /// cover the whole rule).
    pub source: Option<&'a str>,
    pub kube_version: KubeVersion,
    /// On an update: the old object's expressions, which compile with the server's
    /// stored-expressions environment.
    pub preexisting: Option<&'a super::update::Preexisting>,
}

/// The CEL findings of one schema node (the node's field path, e.g.
/// `spec.versions[0].schema.openAPIV3Schema.properties[spec]`). CRD validation reports
/// them only when the node and its descendants have no schema errors, as the server
/// compiles a node's rules only then.
#[derive(Debug)]
pub struct NodeCelFindings {
    pub node: FieldPath,
    pub diagnostics: Vec<Diagnostic>,
}

/// What compiling the rules of one version schema found.
#[derive(Debug, Default)]
pub struct SchemaCelFindings {
    /// Compile errors, grouped by schema node.
    pub nodes: Vec<NodeCelFindings>,
    /// The CEL cost estimate of every rule, from the same compiled programs. The caller
    /// keeps the nodes the server compiles (no schema errors at or below them) and
    /// checks the limits on those ([`super::cel_rules::cost_limit_findings`]).
    pub cost: Option<crate::cel::cost::SchemaCost>,
    /// The compile results, when they are what evaluating resources needs (no stored
    /// expressions); handed on with the structural schema.
    pub compiled: Option<Vec<crate::cel::RuleCompileResult>>,
}

/// Compiles every rule of one version schema once, for both its compile errors and
/// its cost limits (compiling twice was a tenth of CRD validation's work).
pub type CelRulesHook = fn(&CelSchemaInput<'_>) -> SchemaCelFindings;

/// Validates a default value against the CEL rules of the schema it stands in and of
/// the schemas below it (`path` ends in `.default`). Findings without a span are
/// located by their field path.
pub type CelDefaultHook = fn(
    schema: &Structural,
    is_resource_root: bool,
    default: &Node,
    path: &FieldPath,
    kube_version: KubeVersion,
) -> Vec<Finding>;

/// OpenAPI value validation of a default (`ValidateCustomResource` with a validator
/// built from the structural schema): `props` is the schema as written at that node
/// (`None` if it cannot be found), `path` ends in `.default`; the errors are the
/// server's for that value, with the span of the offending part when known.
pub type ValueValidatorHook = fn(
    props: Option<&SchemaProps>,
    schema: &Structural,
    value: &Node,
    path: &FieldPath,
    kube_version: KubeVersion,
) -> Vec<(crate::diag::FieldError, Option<crate::source::Span>)>;

#[derive(Clone, Copy)]
pub struct Hooks {
    pub cel_rules: Option<CelRulesHook>,
    pub cel_default: Option<CelDefaultHook>,
    pub validate_value: ValueValidatorHook,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            cel_rules: Some(super::cel_rules::compile_schema_rules),
            cel_default: Some(super::cel_rules::validate_default),
            validate_value: super::defaults::openapi_value_validation,
        }
    }
}

impl Hooks {
    /// No CEL at all: only the checks that do not need rule compilation or evaluation.
    pub fn without_cel() -> Self {
        Hooks {
            cel_rules: None,
            cel_default: None,
            ..Hooks::default()
        }
    }
}

/// Everything CRD validation needs besides the document.
#[derive(Clone, Copy, Default)]
pub struct Options<'a> {
    pub hooks: Hooks,
    /// The text the document was parsed from (for spans inside rule strings).
    pub source: Option<&'a str>,
    /// The server version whose CEL environment compiles the rules.
    pub kube_version: KubeVersion,
    /// The stored object, when the CRD is validated as an update of it.
    pub old: Option<&'a super::update::OldCrd>,
    /// Receives the structural schemas validation builds, for a caller that prepares
    /// the same decoded CRD for resources next.
    pub structurals: Option<&'a crate::schema::structural::sink::StructuralSink>,
}
