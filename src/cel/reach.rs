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

use super::compile::{DataNodes, SchemaStep, nested_has_rules};
use super::node_steps::{NodeSteps, PerLink};
use super::schema_types::{escape, has_type_and_object_meta};
use crate::schema::structural::{Structural, StructuralOrBool};

/// The depth at which `schema_decl_type` gives up (a node deeper than this below the
/// node a conversion starts from has no type).
const MAX_CONVERSION_DEPTH: usize = 1000;

/// A node's CEL type, as far as the validator's descent needs it: which of its
/// properties are fields, and whether it has an element type. It is read from the
/// schema the way `schema_types::schema_decl_type` builds the type, without building
/// it: a resource root's type is a tree as large as its schema, and the descent only
/// asks which children have a type.
#[derive(Clone, Copy)]
enum Shape<'s> {
    /// The type `node` converts to, `depth` levels below the node its conversion
    /// started from.
    Schema {
        node: &'s Structural,
        /// A resource root (or embedded resource) without its own typed
        /// `kind`/`apiVersion`/`metadata`: the server types those three itself.
        typed_meta: bool,
        depth: usize,
    },
    /// The string the server gives a resource root's `kind` and `apiVersion`, and
    /// `metadata.name`/`generateName`.
    String,
    /// The object the server gives a resource root's `metadata`: `name` and
    /// `generateName`, both strings.
    Metadata,
}

impl<'s> Shape<'s> {
    /// The type a conversion of `node` starts with (`schema_decl_type(node,
    /// is_resource_root)`); `None` when it has none.
    fn convert(node: &'s Structural, is_resource_root: bool) -> Option<Shape<'s>> {
        Shape::at(node, is_resource_root, 0)
    }

    fn at(node: &'s Structural, is_resource_root: bool, depth: usize) -> Option<Shape<'s>> {
        has_type(node, depth).then(|| Shape::Schema {
            node,
            typed_meta: is_resource_root && !has_type_and_object_meta(node),
            depth,
        })
    }

    /// The element type of a list or map type.
    fn elem(self) -> Option<Shape<'s>> {
        let Shape::Schema { node, depth, .. } = self else {
            return None;
        };
        let elem = element_schema(node)?;
        Shape::at(elem, elem.extensions.x_embedded_resource, depth + 1)
    }

    /// The type of the field property `name` (escaped as `escaped`) becomes in an
    /// object type; `None` when the object has no such field.
    fn field(self, name: &str, prop: &'s Structural) -> Option<Shape<'s>> {
        match self {
            Shape::Schema {
                node,
                typed_meta,
                depth,
            } => {
                if !is_object_type(node) {
                    return None;
                }
                if typed_meta {
                    match name {
                        "kind" | "apiVersion" => return Some(Shape::String),
                        "metadata" => return Some(Shape::Metadata),
                        _ => {}
                    }
                }
                Shape::at(prop, prop.extensions.x_embedded_resource, depth + 1)
            }
            Shape::Metadata => matches!(name, "name" | "generateName").then_some(Shape::String),
            Shape::String => None,
        }
    }
}

/// Whether `schema_decl_type` gives `node` a type, `depth` levels below where the
/// conversion started. Only lists and maps depend on their elements (an object
/// leaves untyped properties out).
fn has_type(node: &Structural, depth: usize) -> bool {
    if depth > MAX_CONVERSION_DEPTH {
        return false;
    }
    if node.extensions.x_int_or_string {
        return true;
    }
    match node.generic.type_.as_ref() {
        "array" => node
            .items
            .as_deref()
            .is_some_and(|items| has_type(items, depth + 1)),
        "object" => match &node.additional_properties {
            Some(StructuralOrBool::Structural(values)) => has_type(values, depth + 1),
            _ => true,
        },
        "string" | "boolean" | "number" | "integer" => true,
        _ => false,
    }
}

/// The schema of a list's items or a map's values, for a node typed as one.
fn element_schema(node: &Structural) -> Option<&Structural> {
    if node.extensions.x_int_or_string {
        return None;
    }
    match node.generic.type_.as_ref() {
        "array" => node.items.as_deref(),
        "object" => match &node.additional_properties {
            Some(StructuralOrBool::Structural(values)) => Some(values),
            _ => None,
        },
        _ => None,
    }
}

/// An object type with fields (not a map, not int-or-string).
fn is_object_type(node: &Structural) -> bool {
    !node.extensions.x_int_or_string
        && node.generic.type_ == "object"
        && !matches!(
            node.additional_properties,
            Some(StructuralOrBool::Structural(_))
        )
}

/// The CEL types the validator gives the nodes of one schema, from its root.
pub struct ValidatorReach<'s> {
    root: &'s Structural,
    root_type: Option<Shape<'s>>,
}

impl<'s> ValidatorReach<'s> {
    /// `is_resource_root`: the root is a resource's (or an embedded resource's) root,
    /// whose `apiVersion`, `kind` and `metadata` the server types on its own.
    pub fn new(root: &'s Structural, is_resource_root: bool) -> ValidatorReach<'s> {
        ValidatorReach {
            root,
            root_type: Shape::convert(root, is_resource_root),
        }
    }

    /// Whether the root has a CEL type (else nothing below it is typed either).
    pub fn root_has_type(&self) -> bool {
        self.root_type.is_some()
    }

    /// Whether the validator reaches the node at `steps`. Steps after an `allOf` are
    /// the `allOf` entry's own: whoever compiled them (`compile_all_of_rules`) has
    /// followed the node's types already.
    pub fn reaches(&self, steps: &NodeSteps) -> bool {
        self.memo().reaches(steps)
    }

    /// [`Self::reaches`] for many nodes, each link of their steps followed once (the
    /// rules of a schema share their ancestors: a node per level of a chain 500 deep,
    /// followed from the root each, was 125,000 steps, for each default above them).
    pub fn memo(&self) -> ReachMemo<'s> {
        let root = match self.root_type {
            Some(t) => Reached::At(self.root, t),
            None => Reached::No,
        };
        ReachMemo(PerLink::new(root))
    }

    /// The nodes with rules the validator reaches without a CEL type (the root when it
    /// has none, the items or values of a node whose type has no element type, such
    /// as an int-or-string node): their rules cannot compile, and each value there
    /// fails with "rule compiler initialization error".
    ///
    /// Only nodes where `data` (a default's) has data are walked: no other is checked.
    pub fn untyped_rule_nodes(&self, data: &DataNodes) -> Vec<NodeSteps> {
        let mut out = Vec::new();
        let mut walk = UntypedWalk {
            data,
            out: &mut out,
        };
        walk.node(self.root, self.root_type, &NodeSteps::root(), 0);
        out
    }

    /// Whether the validator reaches a node that has rules (the server then builds
    /// one and runs it on every object).
    pub fn reaches_rules(&self) -> bool {
        match self.root_type {
            Some(t) => has_reached_rules(self.root, Some(t), 0),
            None => false,
        }
    }
}

/// [`ValidatorReach::reaches`] for nodes sharing links.
pub struct ReachMemo<'s>(PerLink<Reached<'s>>);

impl ReachMemo<'_> {
    pub fn reaches(&mut self, steps: &NodeSteps) -> bool {
        !matches!(self.0.get(steps, |at, step| at.step(step)), Reached::No)
    }
}

/// How the validator's descent reaches a node.
#[derive(Clone, Copy)]
enum Reached<'s> {
    /// With this schema and type.
    At(&'s Structural, Shape<'s>),
    /// Below an `allOf` entry, whose steps are its own.
    Unconditionally,
    No,
}

impl<'s> Reached<'s> {
    fn step(self, step: &SchemaStep) -> Reached<'s> {
        let Reached::At(node, ty) = self else {
            return self;
        };
        let next = match step {
            SchemaStep::AllOf(_) => return Reached::Unconditionally,
            SchemaStep::Items => node.items.as_deref().zip(ty.elem()),
            SchemaStep::AdditionalProperties => node.additional_properties_schema().zip(ty.elem()),
            SchemaStep::Property(name) => node
                .property(name)
                .and_then(|prop| Some((prop, property_type(ty, name, prop)?))),
        };
        next.map_or(Reached::No, |(node, ty)| Reached::At(node, ty))
    }
}

/// The type the validator gives property `name` of a node typed `ty`; `None` when it
/// leaves the property out. An escapable name is looked up among the type's fields;
/// another converts the property's own schema.
fn property_type<'s>(ty: Shape<'s>, name: &str, prop: &'s Structural) -> Option<Shape<'s>> {
    match escape(name) {
        Some(_) => ty.field(name, prop),
        None => Shape::convert(prop, prop.extensions.x_embedded_resource),
    }
}

/// Whether a node with rules is reached from `node`, typed `ty`. A node reached without
/// a type (the items or values of a node whose type has no element type, such as an
/// int-or-string node) still gets a validator when it has rules: they fail to compile
/// on every value ("failed to convert to declType"), which the server reports.
fn has_reached_rules(node: &Structural, ty: Option<Shape<'_>>, depth: usize) -> bool {
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
    let elem = ty.and_then(Shape::elem);
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
    node.properties.iter().any(|(name, prop)| {
        // Under a node without a type, an escapable name is not reached at all.
        let prop_type = match ty {
            Some(t) => property_type(t, name, prop),
            None if escape(name).is_none() => {
                Shape::convert(prop, prop.extensions.x_embedded_resource)
            }
            None => None,
        };
        prop_type.is_some_and(|t| has_reached_rules(prop, Some(t), depth + 1))
    })
}

/// The walk of [`ValidatorReach::untyped_rule_nodes`].
struct UntypedWalk<'d, 'o> {
    data: &'d DataNodes,
    out: &'o mut Vec<NodeSteps>,
}

impl UntypedWalk<'_, '_> {
    fn node(&mut self, node: &Structural, ty: Option<Shape<'_>>, steps: &NodeSteps, depth: usize) {
        if depth > 1000 || !self.data.contains(node) {
            return;
        }
        if ty.is_none() && !node.x_validations.is_empty() {
            self.out.push(steps.clone());
        }
        let elem = ty.and_then(Shape::elem);
        if let Some(items) = node.items.as_deref() {
            self.node(items, elem, &steps.child(SchemaStep::Items), depth + 1);
        }
        if let Some(values) = node.additional_properties_schema() {
            let values_steps = steps.child(SchemaStep::AdditionalProperties);
            self.node(values, elem, &values_steps, depth + 1);
        }
        for (name, prop) in &node.properties {
            if let Some(t) = property_type_of(ty, name, prop) {
                let prop_steps = steps.child(SchemaStep::Property(name.as_str().into()));
                self.node(prop, Some(t), &prop_steps, depth + 1);
            }
        }
    }
}

/// [`property_type`] under a node that may have no type: an escapable name is then
/// not reached at all.
fn property_type_of<'s>(
    ty: Option<Shape<'s>>,
    name: &str,
    prop: &'s Structural,
) -> Option<Shape<'s>> {
    match (ty, escape(name)) {
        (Some(t), _) => property_type(t, name, prop),
        (None, Some(_)) => None,
        (None, None) => Shape::convert(prop, prop.extensions.x_embedded_resource),
    }
}
