//! Which schema nodes the server's object validator walks (`schema/cel/validation.go`'s
//! `validator`): the rules of a node it never reaches never run on a resource or a
//! default, however valid.
//!
//! The validator descends with the CEL type of each node, taken from its parent's: a
//! property whose name escapes is looked up among the parent type's fields, and
//! "fields with unknown types are omitted from CEL validation entirely" (a node with
//! no CEL type: no `type` under `x-kubernetes-preserve-unknown-fields`, a list or map
//! of such nodes, and everything below it); a property whose name does not escape
//! converts its own schema instead. Items and map values take the element type.

use super::compile::{SchemaStep, nested_has_rules};
use super::schema_types::{DeclType, escape, schema_decl_type};
use crate::schema::structural::Structural;

/// The CEL types the validator gives the nodes of one schema, from its root.
pub struct ValidatorReach<'s> {
    root: &'s Structural,
    root_type: Option<DeclType>,
}

impl<'s> ValidatorReach<'s> {
    /// `is_resource_root`: the root is a resource's (or an embedded resource's) root,
    /// whose `apiVersion`, `kind` and `metadata` the server types on its own.
    pub fn new(root: &'s Structural, is_resource_root: bool) -> ValidatorReach<'s> {
        ValidatorReach {
            root,
            root_type: schema_decl_type(root, is_resource_root),
        }
    }

    /// Whether the root has a CEL type (else nothing below it is typed either).
    pub fn root_has_type(&self) -> bool {
        self.root_type.is_some()
    }

    /// Whether the validator reaches the node at `steps`. Steps after an `allOf` are
    /// the `allOf` entry's own: whoever compiled them (`compile_all_of_rules`) has
    /// followed the node's types already.
    pub fn reaches(&self, steps: &[SchemaStep]) -> bool {
        match &self.root_type {
            Some(t) => reaches_from(self.root, t, steps),
            None => false,
        }
    }

    /// The nodes with rules the validator reaches without a CEL type (the root when it
    /// has none, the items or values of a node whose type has no element type, such
    /// as an int-or-string node): their rules cannot compile, and each value there
    /// fails with "rule compiler initialization error".
    pub fn untyped_rule_nodes(&self) -> Vec<Vec<SchemaStep>> {
        let mut out = Vec::new();
        untyped_rules(
            self.root,
            self.root_type.as_ref(),
            &mut Vec::new(),
            &mut out,
            0,
        );
        out
    }

    /// Whether the validator reaches a node that has rules (the server then builds
    /// one and runs it on every object).
    pub fn reaches_rules(&self) -> bool {
        match &self.root_type {
            Some(t) => has_reached_rules(self.root, Some(t), 0),
            None => false,
        }
    }
}

fn reaches_from(node: &Structural, ty: &DeclType, steps: &[SchemaStep]) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return true;
    };
    match step {
        SchemaStep::AllOf(_) => true,
        SchemaStep::Items => match (node.items.as_deref(), ty.elem()) {
            (Some(items), Some(elem)) => reaches_from(items, elem, rest),
            _ => false,
        },
        SchemaStep::AdditionalProperties => {
            match (node.additional_properties_schema(), ty.elem()) {
                (Some(values), Some(elem)) => reaches_from(values, elem, rest),
                _ => false,
            }
        }
        SchemaStep::Property(name) => {
            let Some(prop) = node.property(name) else {
                return false;
            };
            match property_type(ty, name, prop) {
                Some(PropertyType::Field(t)) => reaches_from(prop, t, rest),
                Some(PropertyType::Converted(t)) => reaches_from(prop, &t, rest),
                None => false,
            }
        }
    }
}

enum PropertyType<'t> {
    Field(&'t DeclType),
    Converted(DeclType),
}

/// The type the validator gives property `name` of a node typed `ty`; `None` when it
/// leaves the property out.
fn property_type<'t>(ty: &'t DeclType, name: &str, prop: &Structural) -> Option<PropertyType<'t>> {
    match escape(name) {
        Some(escaped) => ty.field(&escaped).map(|f| PropertyType::Field(&f.ty)),
        None => {
            schema_decl_type(prop, prop.extensions.x_embedded_resource).map(PropertyType::Converted)
        }
    }
}

/// Whether a node with rules is reached from `node`, typed `ty`. A node reached without
/// a type (the items or values of a node whose type has no element type, such as an
/// int-or-string node) still gets a validator when it has rules: they fail to compile
/// on every value ("failed to convert to declType"), which the server reports.
fn has_reached_rules(node: &Structural, ty: Option<&DeclType>, depth: usize) -> bool {
    if depth > 1000 {
        return false;
    }
    let all_of_rules = node
        .value_validation
        .as_deref()
        .is_some_and(|v| v.all_of.iter().any(|n| nested_has_rules(n, 0)));
    if !node.x_validations.is_empty() || all_of_rules {
        return true;
    }
    let elem = ty.and_then(DeclType::elem);
    if let Some(items) = node.items.as_deref()
        && has_reached_rules(items, elem, depth + 1)
    {
        return true;
    }
    if let Some(values) = node.additional_properties_schema()
        && has_reached_rules(values, elem, depth + 1)
    {
        return true;
    }
    node.properties
        .iter()
        .any(|(name, prop)| match escape(name) {
            // The validator looks an escapable name up in the node's fields.
            Some(escaped) => ty
                .and_then(|t| t.field(&escaped))
                .is_some_and(|f| has_reached_rules(prop, Some(&f.ty), depth + 1)),
            None => schema_decl_type(prop, prop.extensions.x_embedded_resource)
                .is_some_and(|t| has_reached_rules(prop, Some(&t), depth + 1)),
        })
}

fn untyped_rules(
    node: &Structural,
    ty: Option<&DeclType>,
    steps: &mut Vec<SchemaStep>,
    out: &mut Vec<Vec<SchemaStep>>,
    depth: usize,
) {
    if depth > 1000 {
        return;
    }
    if ty.is_none() && !node.x_validations.is_empty() {
        out.push(steps.clone());
    }
    let elem = ty.and_then(DeclType::elem);
    if let Some(items) = node.items.as_deref() {
        steps.push(SchemaStep::Items);
        untyped_rules(items, elem, steps, out, depth + 1);
        steps.pop();
    }
    if let Some(values) = node.additional_properties_schema() {
        steps.push(SchemaStep::AdditionalProperties);
        untyped_rules(values, elem, steps, out, depth + 1);
        steps.pop();
    }
    for (name, prop) in &node.properties {
        steps.push(SchemaStep::Property(name.clone()));
        match property_type_of(ty, name, prop) {
            Some(PropertyType::Field(t)) => untyped_rules(prop, Some(t), steps, out, depth + 1),
            Some(PropertyType::Converted(t)) => {
                untyped_rules(prop, Some(&t), steps, out, depth + 1)
            }
            None => {}
        }
        steps.pop();
    }
}

/// [`property_type`] under a node that may have no type: an escapable name is then
/// not reached at all.
fn property_type_of<'t>(
    ty: Option<&'t DeclType>,
    name: &str,
    prop: &Structural,
) -> Option<PropertyType<'t>> {
    match (ty, escape(name)) {
        (Some(t), _) => property_type(t, name, prop),
        (None, Some(_)) => None,
        (None, None) => {
            schema_decl_type(prop, prop.extensions.x_embedded_resource).map(PropertyType::Converted)
        }
    }
}
