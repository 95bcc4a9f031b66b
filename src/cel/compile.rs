//! Compiling every `x-kubernetes-validations` rule of a CRD schema as the API server
//! does when a CRD is created (apiextensions `validation.go`
//! `ValidateCustomResourceDefinitionOpenAPISchema`, `cel_validation.go` type info,
//! `schema/cel/compilation.go` `Compile`): the rule-level checks, the declared types
//! of `self`/`oldSelf`, compilation with the server's error texts, and the transition
//! rule restrictions.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

pub use super::node_steps::NodeSteps;

use super::ast::Ast;
use super::checker::{CheckedAst, Declarations, Reference};
use super::env::{Env, KubeVersion};
use super::errors::Issues;
use super::program_cache;
use super::schema_types::{DeclType, SELF_TYPE_NAME, TypeRegistry, escape, schema_decl_type};
use super::types::Type;
use crate::diag::{Diagnostic, FieldPath, RuleFieldPath, gofmt};
use crate::model::schema::ValidationRule;
use crate::schema::fieldpath;
use crate::schema::fieldpath::{NIL_SCHEMA_PANIC, SERVER_PANIC_RESPONSE};
use crate::schema::structural::{NestedValueValidation, Structural, StructuralOrBool};
use crate::source::{Node, Span, Value};

/// Reasons a rule may declare.
pub const SUPPORTED_REASONS: &[&str] = &[
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// One step from a schema node to a child.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SchemaStep {
    /// A property name, shared by the paths of every node below it (a `String` per
    /// step and node was D strings per node with rules: 20,000 of them 400 levels
    /// deep held 590 MB).
    Property(Arc<str>),
    Items,
    AdditionalProperties,
    /// The `allOf[i]` entry of the current schema: same value, other rules (only at
    /// evaluation; the server forbids rules there when a CRD is created).
    AllOf(usize),
}

/// A compiled rule, ready to evaluate.
#[derive(Debug)]
pub struct RuleProgram {
    pub rule: CheckedAst,
    pub message_expression: Option<CheckedAst>,
    pub uses_old_self: bool,
    /// `fieldPath` normalised (`.spec.x` form), when valid.
    pub normalized_field_path: Option<String>,
    pub env: Arc<Env>,
    /// The estimated costs of the rule and its messageExpression on a node of declared
    /// type with this fingerprint (see [`crate::cel::cost::estimate_compiled`]).
    pub estimated: OnceLock<EstimatedCost>,
}

/// A program's maximum costs on one declared type.
#[derive(Clone, Copy, Debug)]
pub struct EstimatedCost {
    pub decl: u128,
    /// The cost walk the numbers follow (a program may be shared by servers whose
    /// cel-go releases differ).
    pub model: super::cost::estimator::CostModel,
    pub rule: u64,
    pub message_expression: Option<u64>,
}

/// The declared type of a node's `self`, for compiling its rules.
struct Typed<'a> {
    self_type: &'a Type,
    registry: &'a TypeRegistry<'a>,
    fingerprint: u128,
}

/// The outcome for one entry of `x-kubernetes-validations`.
#[derive(Debug)]
pub struct RuleCompileResult {
    /// Where the schema node is, from the root: one copy shared by the node's rules
    /// (a copy per rule was R x D: 40,000 rules at depth 400 kept 1.7 GB).
    pub node: NodeSteps,
    /// Index in the node's `x-kubernetes-validations`.
    pub index: usize,
    /// The field path of the rule (`…x-kubernetes-validations[0].rule`).
    pub field: RuleFieldPath,
    pub program: Option<Arc<RuleProgram>>,
    pub diagnostics: Vec<Diagnostic>,
    /// Character offset inside the rule string of the first compile error.
    pub error_offset: Option<usize>,
    /// For rules inside `allOf` (compiled only when objects are validated): the
    /// failure the server reports on every object instead of evaluating the rule.
    pub runtime_error: Option<RuntimeCompileError>,
}

/// A compile failure of a rule compiled at validation time (rules inside `allOf`),
/// reported as `<node path>: Invalid value: "<type>": <text>`.
#[derive(Clone, Debug, PartialEq)]
pub enum RuntimeCompileError {
    /// The node has no CEL type: one error for the node, no rule runs.
    Init(String),
    /// This rule does not compile (`rule compile error: …`).
    Rule(String),
}

crate::declare_codes! {
    CEL_COMPILE = "cel-compile-error", Error, "A CEL rule or messageExpression does not compile (syntax, undeclared names, type errors)";
    CEL_RESULT_TYPE = "cel-result-type", Error, "A rule does not evaluate to bool, or a messageExpression to string";
    CEL_RULE_INVALID = "cel-rule-invalid", Error, "An x-kubernetes-validations entry has an empty rule, a bad message, reason or fieldPath";
    CEL_TRANSITION_RULE = "cel-transition-rule", Error, "oldSelf is used where old and new values cannot be correlated, or optionalOldSelf without oldSelf";
    CEL_UNTYPED_NODE = "cel-untyped-node", Error, "Rules on a schema node that has no CEL type";
    CEL_RULE_FAILED = "cel-rule-failed", Error, "A custom resource fails an x-kubernetes-validations rule";
    CEL_RUNTIME_ERROR = "cel-runtime-error", Error, "Evaluating a rule on a custom resource fails (no such key, overflow, cost limit)";
    CEL_RULE_RATCHETED = "cel-rule-ratcheted", Warning, "An update keeps a value that fails a rule unchanged: the server accepts it (validation ratcheting) with a warning";
}

/// On a CRD update, the rules and messageExpressions the old object already had: the
/// server compiles them with its stored-expressions environment (every library of its
/// own version) instead of the new-expressions one (one minor version back).
#[derive(Clone, Copy, Debug)]
pub struct StoredExpressions<'a> {
    pub rules: &'a HashSet<String>,
    pub message_expressions: &'a HashSet<String>,
}

/// [`compile_rules`] for an update: the expressions in `stored` compile with the
/// stored-expressions environment.
pub fn compile_rules_with(
    root: &Structural,
    version: KubeVersion,
    base: &FieldPath,
    stored: Option<StoredExpressions<'_>>,
) -> Vec<RuleCompileResult> {
    walk_rules(root, true, version, base, true, stored)
}

/// Compiles every rule under `root` for a server of `version`. `base` is the field path
/// of the root schema (`spec.validation.openAPIV3Schema` or
/// `spec.versions[0].schema.openAPIV3Schema`).
pub fn compile_rules(
    root: &Structural,
    version: KubeVersion,
    base: &FieldPath,
) -> Vec<RuleCompileResult> {
    walk_rules(root, true, version, base, true, None)
}

/// [`compile_rules`] for a schema node that is a resource root only when
/// `is_resource_root` (the server's `NewValidator(s, isResourceRoot)`, used to check
/// defaults against the rules of the node they stand in).
///
/// Unlike [`compile_rules`], a rule whose entry is invalid (an unsupported `reason`, a
/// bad `message`…) is still compiled: the validator checking defaults compiles the
/// schema's rules on its own, whatever the CRD's other errors.
///
/// Only the rules of nodes where the default to check has data (`data`) are
/// compiled: the validator runs no other, and reports a compile failure only at a
/// value it checks. (Nodes are compiled on their own here, never failing their
/// children, so leaving some out changes nothing for the others.) A default at each
/// level of a chain 400 objects deep, over 4,000 rules at its end, compiled 1.6
/// million rules; with `default: {}` it now compiles the rules of its own node.
pub fn compile_rules_at(
    root: &Structural,
    is_resource_root: bool,
    version: KubeVersion,
    base: &FieldPath,
    data: &DataNodes,
) -> Vec<RuleCompileResult> {
    if data.with_rules.is_empty() {
        return Vec::new();
    }
    walk_rules_in(
        root,
        is_resource_root,
        version,
        base,
        false,
        None,
        &data.with_rules,
    )
}

/// The schema nodes where a value (a default) has data, found in one walk of the
/// value: what checking it can reach, whatever the size of the schema below.
pub struct DataNodes {
    all: HashSet<*const Structural>,
    /// Those with rules at or below them (closed upwards).
    with_rules: HashSet<*const Structural>,
}

impl DataNodes {
    pub fn of(root: &Structural, value: &Node) -> DataNodes {
        let mut nodes = DataNodes {
            all: HashSet::new(),
            with_rules: HashSet::new(),
        };
        let mut has_rules = std::collections::HashMap::new();
        nodes.add(root, value, &mut has_rules, 0);
        nodes
    }

    /// Whether the value has data at `s`.
    pub fn contains(&self, s: &Structural) -> bool {
        self.all.contains(&(s as *const Structural))
    }

    fn add(
        &mut self,
        s: &Structural,
        value: &Node,
        has_rules: &mut std::collections::HashMap<*const Structural, bool>,
        depth: usize,
    ) {
        if depth > 1000 {
            return;
        }
        let key = s as *const Structural;
        self.all.insert(key);
        // Found by a walk that stops at the first rule, once per node.
        if *has_rules
            .entry(key)
            .or_insert_with(|| subtree_has_any_rule(s, 0))
        {
            self.with_rules.insert(key);
        }
        match &value.value {
            Value::Object(map) => {
                for (name, child) in map.iter() {
                    if let Some(prop) = s.property(name) {
                        self.add(prop, child, has_rules, depth + 1);
                    }
                    if let Some(values) = s.additional_properties_schema() {
                        self.add(values, child, has_rules, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = s.items.as_deref() {
                    for item in items {
                        self.add(item_schema, item, has_rules, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether `s` or a node below it has rules (stops at the first).
fn subtree_has_any_rule(s: &Structural, depth: usize) -> bool {
    depth <= 1000
        && (!s.x_validations.is_empty()
            || s.additional_properties_schema()
                .is_some_and(|ap| subtree_has_any_rule(ap, depth + 1))
            || s.properties
                .iter()
                .any(|(_, p)| subtree_has_any_rule(p, depth + 1))
            || s.items
                .as_deref()
                .is_some_and(|i| subtree_has_any_rule(i, depth + 1)))
}

fn walk_rules(
    root: &Structural,
    is_resource_root: bool,
    version: KubeVersion,
    base: &FieldPath,
    entry_checks_gate: bool,
    stored: Option<StoredExpressions<'_>>,
) -> Vec<RuleCompileResult> {
    let mut with_rules = HashSet::new();
    if !subtree_has_rules(root, &mut with_rules, 0) {
        return Vec::new();
    }
    walk_rules_in(
        root,
        is_resource_root,
        version,
        base,
        entry_checks_gate,
        stored,
        &with_rules,
    )
}

/// Compiles the rules of the nodes in `nodes` (closed upwards: a node's parent is in
/// it too), from `root`.
fn walk_rules_in(
    root: &Structural,
    is_resource_root: bool,
    version: KubeVersion,
    base: &FieldPath,
    entry_checks_gate: bool,
    stored: Option<StoredExpressions<'_>>,
    nodes: &HashSet<*const Structural>,
) -> Vec<RuleCompileResult> {
    let env = Env::for_server(version);
    let stored_env = Env::for_compatibility(version);
    let mut out = Vec::new();
    let mut walker = Walker {
        env: &env,
        stored: stored.map(|s| (s, &stored_env)),
        out: &mut out,
        with_rules: Some(nodes),
        all_of: false,
        entry_checks_gate,
        crashed: false,
        base: Arc::new(base.clone()),
    };
    let scope = !root.x_validations.is_empty();
    walker.node(
        root,
        base,
        &NodeSteps::root(),
        FromParent::OutOfScope,
        scope,
        is_resource_root,
        None,
        0,
    );
    out
}

/// Compiles the rules written inside `allOf` (at any depth under the structural
/// spine) as the server's validator does when it validates objects
/// (`schema/cel/validation.go`): each `allOf` entry is a set of extra rules for the
/// same node, typed like the node; its `properties`/`items`/`additionalProperties`
/// only reach children the node itself declares. Creating such a CRD is refused
/// (`x-kubernetes-validations: Forbidden: must be empty to be structural`), so these
/// results carry no CRD diagnostics; compile failures are in `runtime_error`.
pub fn compile_all_of_rules(
    root: &Structural,
    version: KubeVersion,
    base: &FieldPath,
) -> Vec<RuleCompileResult> {
    let mut out = Vec::new();
    // Walking builds every node's CEL type: first make sure there is a rule to compile.
    if !all_of_has_rules(root, 0) {
        return out;
    }
    let env = Env::for_server(version);
    // Every node is walked: `allOf` entries may sit where the spine has no rules.
    let mut walker = Walker {
        env: &env,
        stored: None,
        out: &mut out,
        with_rules: None,
        all_of: true,
        entry_checks_gate: true,
        crashed: false,
        base: Arc::new(base.clone()),
    };
    walker.node(
        root,
        base,
        &NodeSteps::root(),
        FromParent::OutOfScope,
        true,
        true,
        None,
        0,
    );
    out
}

/// Whether an `allOf` entry at or below `s` (on the structural spine) has rules, at
/// any depth inside it.
fn all_of_has_rules(s: &Structural, depth: usize) -> bool {
    if depth > 1000 {
        return false;
    }
    let in_all_of = s
        .value_validation
        .as_deref()
        .is_some_and(|v| v.all_of.iter().any(|n| nested_has_rules(n, 0)));
    in_all_of
        || s.items
            .as_deref()
            .is_some_and(|i| all_of_has_rules(i, depth + 1))
        || s.properties
            .iter()
            .any(|(_, p)| all_of_has_rules(p, depth + 1))
        || s.additional_properties_schema()
            .is_some_and(|a| all_of_has_rules(a, depth + 1))
}

pub(crate) fn nested_has_rules(n: &NestedValueValidation, depth: usize) -> bool {
    if depth > 1000 {
        return false;
    }
    !n.x_validations.is_empty()
        || n.value_validation
            .all_of
            .iter()
            .any(|m| nested_has_rules(m, depth + 1))
        || n.items
            .as_deref()
            .is_some_and(|i| nested_has_rules(i, depth + 1))
        || n.properties
            .values()
            .any(|p| nested_has_rules(p, depth + 1))
        || n.additional_properties
            .as_deref()
            .is_some_and(|a| nested_has_rules(a, depth + 1))
}

/// The server's `InternalError` for the rules of a node it has no CEL type for.
fn untyped_node_error(list_path: &FieldPath, detail: &str, span: Span, help: &str) -> Diagnostic {
    Diagnostic::error(
        CEL_UNTYPED_NODE,
        format!("{list_path}: Internal error: {detail}"),
    )
    .with_field(list_path.to_string())
    .with_reason("InternalError")
    .with_detail(detail)
    .with_span(span)
    .with_help(help)
}

/// How a node's rules reach their type (see [`FromParent`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum TypeReach {
    Reached,
    NoDeclType,
    Crashes,
}

/// What a node's parent gives it towards its CEL type (the server's
/// `CELSchemaContext.TypeInfo`).
#[derive(Clone, Copy)]
enum FromParent<'d> {
    /// No parent, or a parent outside any rule's scope: the node converts its own schema.
    OutOfScope,
    /// The parent's type, and the node's part of it if there is one (else the node
    /// converts its own schema).
    Accessed(Option<&'d DeclType>),
    /// The parent's type could not be built: neither can the node's, the parent's error
    /// is the node's.
    Failed,
    /// The parent's type has no part for this node although its schema has one (the
    /// items or additionalProperties of an int-or-string node, whose type is `dyn`):
    /// the server's type info for the node has no declared type, so its rules fail
    /// to compile ("failed to convert to declType").
    NoDeclType,
    /// The parent had no declared type ([`FromParent::NoDeclType`]), or an ancestor:
    /// the server dereferences it to find this node's, and crashes.
    Crashes,
}

struct Walker<'a> {
    env: &'a Arc<Env>,
    /// The old object's expressions and the stored-expressions environment.
    stored: Option<(StoredExpressions<'a>, &'a Arc<Env>)>,
    out: &'a mut Vec<RuleCompileResult>,
    /// The nodes with rules at or below them; the walk skips the others (`None`: walk
    /// every node).
    with_rules: Option<&'a HashSet<*const Structural>>,
    /// Compile only the rules inside `allOf` (see [`compile_all_of_rules`]).
    all_of: bool,
    /// The server crashed at a node before (see [`FromParent::Crashes`]): the request
    /// ends there, nothing after it is compiled.
    crashed: bool,
    /// A node's rules are not compiled when one of its entries is invalid, as in the
    /// server's CRD validation (see [`compile_rules_at`]).
    entry_checks_gate: bool,
    /// The schema's path, shared by its rules' field paths.
    base: Arc<FieldPath>,
}

/// Whether `s` or a node below it has rules; such nodes are added to `set`.
fn subtree_has_rules(s: &Structural, set: &mut HashSet<*const Structural>, depth: usize) -> bool {
    if depth > 1000 {
        return false;
    }
    let mut found = !s.x_validations.is_empty();
    if let Some(StructuralOrBool::Structural(ap)) = &s.additional_properties {
        found |= subtree_has_rules(ap, set, depth + 1);
    }
    for (_, prop) in &s.properties {
        found |= subtree_has_rules(prop, set, depth + 1);
    }
    if let Some(items) = &s.items {
        found |= subtree_has_rules(items, set, depth + 1);
    }
    if found {
        set.insert(s as *const Structural);
    }
    found
}

impl Walker<'_> {
    fn wanted(&self, s: &Structural) -> bool {
        self.with_rules
            .is_none_or(|set| set.contains(&(s as *const Structural)))
    }

    /// What a node of type `decl` (in a rule's scope or not) gives a child whose part
    /// of it `access` finds. Only CRD validation lets a failed parent fail its
    /// children; the validators of objects and defaults convert each node on its own.
    fn child_type<'d>(
        &self,
        in_scope: bool,
        decl: Option<&'d DeclType>,
        access: impl FnOnce(&'d DeclType) -> Option<&'d DeclType>,
    ) -> FromParent<'d> {
        match decl {
            Some(d) => FromParent::Accessed(access(d)),
            None if in_scope && self.crd_context() => FromParent::Failed,
            None => FromParent::OutOfScope,
        }
    }

    /// [`Walker::child_type`] for the node's `items` or `additionalProperties` schema,
    /// which the server takes from the parent's element type without converting it
    /// (`itemsTypeInfoAccessor`): a parent without one leaves the child without a
    /// declared type.
    fn element_type<'d>(&self, in_scope: bool, decl: Option<&'d DeclType>) -> FromParent<'d> {
        match decl {
            Some(d) if d.elem().is_none() && self.crd_context() => FromParent::NoDeclType,
            _ => self.child_type(in_scope, decl, |d| d.elem()),
        }
    }

    /// Whether type information flows from parents to children as in the server's CRD
    /// validation (`CELSchemaContext`), not node by node.
    fn crd_context(&self) -> bool {
        self.entry_checks_gate && !self.all_of
    }

    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        s: &Structural,
        path: &FieldPath,
        steps: &NodeSteps,
        from_parent: FromParent<'_>,
        in_scope: bool,
        is_root: bool,
        uncorrelatable: Option<&FieldPath>,
        depth: usize,
    ) {
        if depth > 1000 || !self.wanted(s) || self.crashed {
            return;
        }
        let crashes = matches!(from_parent, FromParent::Crashes);
        let no_decl_type = matches!(from_parent, FromParent::NoDeclType);
        // The type info of this node: from the parent's when possible (borrowed: the
        // children's types are parts of it), else converted.
        let converted: Option<DeclType>;
        let decl: Option<&DeclType> = if in_scope {
            match from_parent {
                FromParent::Accessed(Some(d)) => Some(d),
                FromParent::Failed | FromParent::NoDeclType | FromParent::Crashes => None,
                _ => {
                    converted = schema_decl_type(s, is_root || s.extensions.x_embedded_resource);
                    converted.as_ref()
                }
            }
        } else {
            None
        };
        if self.all_of {
            if let Some(vv) = &s.value_validation {
                for (i, a) in vv.all_of.iter().enumerate() {
                    self.nested(
                        a,
                        s,
                        &path.child("allOf").index(i),
                        &steps.child(SchemaStep::AllOf(i)),
                        decl,
                        depth + 1,
                    );
                }
            }
        } else if !s.x_validations.is_empty() {
            let reach = match (crashes, no_decl_type) {
                (true, _) => TypeReach::Crashes,
                (_, true) => TypeReach::NoDeclType,
                _ => TypeReach::Reached,
            };
            self.rules(s, path, steps, decl, reach, uncorrelatable);
            if self.crashed {
                return;
            }
        }
        // What the children get when this node has no usable type info: a child
        // whose type the server looks up in this node's crashes it.
        let lookup_crashes = crashes || no_decl_type;
        if let Some(StructuralOrBool::Structural(ap)) = &s.additional_properties
            && self.wanted(ap)
        {
            let child_scope = in_scope || !ap.x_validations.is_empty();
            let child_decl = if lookup_crashes {
                FromParent::Crashes
            } else {
                self.element_type(in_scope, decl)
            };
            self.node(
                ap,
                &path.child("additionalProperties"),
                &steps.child(SchemaStep::AdditionalProperties),
                child_decl,
                child_scope,
                false,
                uncorrelatable,
                depth + 1,
            );
        }
        for (name, prop) in &s.properties {
            if !self.wanted(prop) {
                continue;
            }
            let map_type = s.extensions.x_map_type.as_deref();
            let correlatable = matches!(map_type, None | Some("granular") | Some("atomic"));
            let unc = if uncorrelatable.is_none() && !correlatable {
                Some(path.clone())
            } else {
                None
            };
            let child_scope = in_scope || !prop.x_validations.is_empty();
            let child_decl = match escape(name) {
                // The server looks an escapable name up in the parent's fields.
                Some(_) if lookup_crashes => FromParent::Crashes,
                // An unescapable name is not looked up: the node converts its schema.
                None if lookup_crashes => FromParent::OutOfScope,
                _ => self.child_type(in_scope, decl, |d| {
                    escape(name).and_then(|e| d.field(&e)).map(|f| &f.ty)
                }),
            };
            if self.all_of
                && escape(name).is_some()
                && !matches!(child_decl, FromParent::Accessed(Some(_)))
            {
                // Fields of unknown type are left out of CEL validation entirely.
                continue;
            }
            self.node(
                prop,
                &path.child("properties").key(name),
                &steps.child(SchemaStep::Property(name.as_str().into())),
                child_decl,
                child_scope,
                false,
                unc.as_ref().or(uncorrelatable),
                depth + 1,
            );
        }
        if let Some(items) = s.items.as_deref().filter(|i| self.wanted(i)) {
            let unc =
                if uncorrelatable.is_none() && s.extensions.x_list_type.as_deref() != Some("map") {
                    Some(path.clone())
                } else {
                    None
                };
            let child_scope = in_scope || !items.x_validations.is_empty();
            let child_decl = if lookup_crashes {
                FromParent::Crashes
            } else {
                self.element_type(in_scope, decl)
            };
            self.node(
                items,
                &path.child("items"),
                &steps.child(SchemaStep::Items),
                child_decl,
                child_scope,
                false,
                unc.as_ref().or(uncorrelatable),
                depth + 1,
            );
        }
    }

    /// The rules of one `allOf` entry `n` on the node `node` (typed `decl`), then its
    /// own `allOf`, `items`, `properties` and `additionalProperties`, each only where
    /// the node has the same child.
    fn nested(
        &mut self,
        n: &NestedValueValidation,
        node: &Structural,
        path: &FieldPath,
        steps: &NodeSteps,
        decl: Option<&DeclType>,
        depth: usize,
    ) {
        if depth > 1000 {
            return;
        }
        if !n.x_validations.is_empty() {
            self.nested_rules(n, node, path, steps, decl);
        }
        for (i, a) in n.value_validation.all_of.iter().enumerate() {
            self.nested(
                a,
                node,
                &path.child("allOf").index(i),
                &steps.child(SchemaStep::AllOf(i)),
                decl,
                depth + 1,
            );
        }
        let elem = decl.and_then(|d| d.elem().cloned());
        if let (Some(ni), Some(si)) = (&n.items, &node.items) {
            self.nested(
                ni,
                si,
                &path.child("items"),
                &steps.child(SchemaStep::Items),
                elem.as_ref(),
                depth + 1,
            );
        }
        for (name, np) in &n.properties {
            let Some(sp) = node.property(name) else {
                continue;
            };
            let child_decl = match escape(name) {
                Some(e) => match decl.and_then(|d| d.field(&e)) {
                    Some(f) => Some(f.ty.clone()),
                    None => continue,
                },
                None => match schema_decl_type(sp, sp.extensions.x_embedded_resource) {
                    Some(d) => Some(d),
                    None => continue,
                },
            };
            self.nested(
                np,
                sp,
                &path.child("properties").key(name),
                &steps.child(SchemaStep::Property(name.as_str().into())),
                child_decl.as_ref(),
                depth + 1,
            );
        }
        if let (Some(na), Some(StructuralOrBool::Structural(sa))) =
            (&n.additional_properties, &node.additional_properties)
        {
            self.nested(
                na,
                sa,
                &path.child("additionalProperties"),
                &steps.child(SchemaStep::AdditionalProperties),
                elem.as_ref(),
                depth + 1,
            );
        }
    }

    /// Compiles the rules of an `allOf` entry as the server's validator does: no
    /// entry-level checks (message, reason, fieldPath) and no transition-rule
    /// restrictions, only compilation; failures become [`RuntimeCompileError`]s.
    fn nested_rules(
        &mut self,
        n: &NestedValueValidation,
        node: &Structural,
        path: &FieldPath,
        steps: &NodeSteps,
        decl: Option<&DeclType>,
    ) {
        let list_path = path.child("x-kubernetes-validations");
        let node_steps = steps.clone();
        let Some(decl) = decl else {
            self.out.push(RuleCompileResult {
                field: RuleFieldPath::new(self.base.clone(), node_steps.clone(), 0, "rule"),
                node: node_steps,
                index: 0,
                program: None,
                diagnostics: Vec::new(),
                error_offset: None,
                runtime_error: Some(RuntimeCompileError::Init(
                    "rule compiler initialization error: failed to convert to declType for CEL validation rules".into(),
                )),
            });
            return;
        };
        let registry = TypeRegistry::new(
            decl,
            SELF_TYPE_NAME,
            self.env.version >= KubeVersion::new(1, 31),
        );
        let self_type = registry.root_type();
        for (i, rule) in n.x_validations.iter().enumerate() {
            let rpath = list_path.index(i);
            let mut r = RuleCompileResult {
                node: node_steps.clone(),
                index: i,
                field: RuleFieldPath::new(self.base.clone(), node_steps.clone(), i, "rule"),
                program: None,
                diagnostics: Vec::new(),
                error_offset: None,
                runtime_error: None,
            };
            self.compile_one(node, rule, &rpath, &self_type, &registry, None, &mut r);
            if r.program.is_none() {
                r.runtime_error = r
                    .diagnostics
                    .iter()
                    .find(|d| d.field.as_deref() == Some(r.field.to_string().as_str()))
                    .and_then(|d| d.detail.clone())
                    .map(|d| RuntimeCompileError::Rule(format!("rule compile error: {d}")));
            }
            // The CRD-side diagnostics do not apply: the server refuses the rules
            // themselves when the CRD is created.
            r.diagnostics.clear();
            self.out.push(r);
        }
    }

    fn rules(
        &mut self,
        s: &Structural,
        path: &FieldPath,
        steps: &NodeSteps,
        decl: Option<&DeclType>,
        reach: TypeReach,
        uncorrelatable: Option<&FieldPath>,
    ) {
        // Past the CRD's findings limit no more rules are compiled (the CRD check says
        // it stopped).
        if crate::diag::budget::exhausted() {
            return;
        }
        let list_path = path.child("x-kubernetes-validations");
        let mut schema_errors = false;
        let mut results: Vec<RuleCompileResult> = Vec::new();
        let node_steps = steps.clone();
        for (i, rule) in s.x_validations.iter().enumerate() {
            let rpath = list_path.index(i);
            let mut r = RuleCompileResult {
                node: node_steps.clone(),
                index: i,
                field: RuleFieldPath::new(self.base.clone(), node_steps.clone(), i, "rule"),
                program: None,
                diagnostics: Vec::new(),
                error_offset: None,
                runtime_error: None,
            };
            for d in rule_field_checks(s, rule, &rpath) {
                schema_errors = true;
                r.diagnostics.push(d);
            }
            results.push(r);
        }
        if !schema_errors || !self.entry_checks_gate {
            match decl {
                // The type info is asked for only when the entries are valid.
                None if reach == TypeReach::Crashes => {
                    self.crashed = true;
                    let d = Diagnostic::error(CEL_UNTYPED_NODE, SERVER_PANIC_RESPONSE)
                        .with_field(list_path.to_string())
                        .with_detail(format!("{list_path}: {NIL_SCHEMA_PANIC}"))
                        .with_span(s.span)
                        .with_help("the server crashes looking up this node's CEL type in its parent's, which has none (an ancestor is x-kubernetes-int-or-string and has items or additionalProperties); move the rules to the int-or-string node or drop x-kubernetes-int-or-string");
                    crate::diag::budget::charge_finding(&d);
                    if let Some(first) = results.first_mut() {
                        first.diagnostics.push(d);
                    }
                }
                None => {
                    let (detail, help) = if reach == TypeReach::NoDeclType {
                        (
                            "failed to convert to declType for CEL validation rules",
                            "the parent is x-kubernetes-int-or-string (CEL type dyn), which gives its items or additionalProperties no type; move the rules to the int-or-string node or drop x-kubernetes-int-or-string",
                        )
                    } else {
                        (
                            "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations",
                            "give this schema node a type (or items/properties) so its rules can be type-checked",
                        )
                    };
                    let d = untyped_node_error(&list_path, detail, s.span, help);
                    crate::diag::budget::charge_finding(&d);
                    if let Some(first) = results.first_mut() {
                        first.diagnostics.push(d);
                    }
                }
                Some(decl) => {
                    let registry = TypeRegistry::new(
                        decl,
                        SELF_TYPE_NAME,
                        self.env.version >= KubeVersion::new(1, 31),
                    );
                    let self_type = registry.root_type();
                    let typed = Typed {
                        self_type: &self_type,
                        registry: &registry,
                        fingerprint: decl.fingerprint(),
                    };
                    for (i, rule) in s.x_validations.iter().enumerate() {
                        // Past the CRD's findings limit the rest is not compiled (the
                        // CRD check says it stopped).
                        if crate::diag::budget::exhausted() {
                            break;
                        }
                        let r = &mut results[i];
                        self.compile_or_reuse(
                            s,
                            rule,
                            &list_path.index(i),
                            &typed,
                            uncorrelatable,
                            r,
                        );
                    }
                }
            }
        }
        self.out.extend(results);
    }

    /// Compiles one rule, or takes the program an identical rule on an identically
    /// typed node compiled ([`program_cache`]).
    fn compile_or_reuse(
        &self,
        s: &Structural,
        rule: &ValidationRule,
        rpath: &FieldPath,
        typed: &Typed<'_>,
        uncorrelatable: Option<&FieldPath>,
        r: &mut RuleCompileResult,
    ) {
        if rule.rule.trim().is_empty() {
            return;
        }
        // A `fieldPath` is resolved against the schema node itself, which the declared
        // type does not fully describe: such rules are compiled where they stand.
        let key = rule
            .field_path
            .as_deref()
            .is_none_or(str::is_empty)
            .then(|| program_cache::ProgramKey {
                rule: rule.rule.clone(),
                message_expression: rule.message_expression.clone(),
                optional_old_self: rule.optional_old_self,
                uncorrelatable: uncorrelatable.is_some(),
                decl: typed.fingerprint,
                walk_env: self.env.version,
                rule_env: self.env_for(self.stored_rule(&rule.rule)).version,
                message_env: self
                    .env_for(
                        rule.message_expression
                            .as_deref()
                            .is_some_and(|me| self.stored_message_expression(me)),
                    )
                    .version,
            });
        if let Some(program) = key.as_ref().and_then(program_cache::get) {
            r.program = Some(program);
            return;
        }
        let findings_before = r.diagnostics.len();
        self.compile_one(
            s,
            rule,
            rpath,
            typed.self_type,
            typed.registry,
            uncorrelatable,
            r,
        );
        if let (Some(key), Some(program)) = (key, &r.program)
            && r.diagnostics.len() == findings_before
        {
            program_cache::put(key, program);
        }
    }

    /// The environment of an expression: the stored-expressions one for an expression
    /// the old object already had.
    fn env_for(&self, stored: bool) -> &Arc<Env> {
        match self.stored {
            Some((_, env)) if stored => env,
            _ => self.env,
        }
    }

    fn stored_rule(&self, rule: &str) -> bool {
        self.stored.is_some_and(|(s, _)| s.rules.contains(rule))
    }

    fn stored_message_expression(&self, me: &str) -> bool {
        self.stored
            .is_some_and(|(s, _)| s.message_expressions.contains(me))
    }

    #[allow(clippy::too_many_arguments)]
    fn compile_one(
        &self,
        s: &Structural,
        rule: &ValidationRule,
        rpath: &FieldPath,
        self_type: &Type,
        registry: &TypeRegistry,
        uncorrelatable: Option<&FieldPath>,
        r: &mut RuleCompileResult,
    ) {
        if rule.rule.trim().is_empty() {
            return;
        }
        let old_self_type = if rule.optional_old_self == Some(true) {
            Type::optional(self_type.clone())
        } else {
            self_type.clone()
        };
        let vars = vec![
            ("self".to_string(), self_type.clone()),
            ("oldSelf".to_string(), old_self_type),
        ];
        let rule_env = self.env_for(self.stored_rule(&rule.rule));
        let decls = Declarations {
            env: rule_env,
            variables: &vars,
            provider: registry,
        };
        let rule_span = rule.rule_node.as_ref().map(|n| n.span).unwrap_or(rule.span);
        let value = rule_json(rule);
        let checked = match compile_expression(&rule.rule, &decls) {
            Err(issues) => {
                let detail = format!("compilation failed: {}", issues.display());
                r.error_offset = issues.first().and_then(|e| e.char_offset(&rule.rule));
                r.diagnostics.push(
                    invalid(
                        CEL_COMPILE,
                        &rpath.child("rule"),
                        &value,
                        &detail,
                        rule_span,
                    )
                    .with_label(
                        issues
                            .first()
                            .map(|e| e.message.clone())
                            .unwrap_or_default(),
                    ),
                );
                // The server learns whether the rule uses oldSelf only from a
                // checked rule: for a failed one, optionalOldSelf is "not used".
                optional_old_self_unused(rule, rpath, r);
                return;
            }
            Ok(c) => c,
        };
        if checked.output_type() != Type::Bool {
            r.diagnostics.push(
                invalid(
                    CEL_RESULT_TYPE,
                    &rpath.child("rule"),
                    &value,
                    "cel expression must evaluate to a bool",
                    rule_span,
                )
                .with_help(format!(
                    "the rule evaluates to {}; a rule must be a boolean expression",
                    checked.output_type()
                )),
            );
            optional_old_self_unused(rule, rpath, r);
            return;
        }
        let uses_old_self = checked
            .refs
            .values()
            .any(|r| matches!(r, Reference::Ident(n) if n == "oldSelf"));
        // The server builds the program before it compiles the messageExpression; a
        // planning failure leaves the rule without program and cost.
        let plan_error = super::plan::first_error(&checked);
        if let Some(e) = &plan_error {
            r.diagnostics.push(invalid(
                CEL_COMPILE,
                &rpath.child("rule"),
                &value,
                &format!("program instantiation failed: {e}"),
                rule_span,
            ));
        }
        let mut message_expression = None;
        let mut ok = true;
        if let Some(me) = rule
            .message_expression
            .as_deref()
            .filter(|m| !m.is_empty() && plan_error.is_none())
        {
            let me_span = rule
                .message_expression_node
                .as_ref()
                .map(|n| n.span)
                .unwrap_or(rule.span);
            let me_decls = Declarations {
                env: self.env_for(self.stored_message_expression(me)),
                ..decls
            };
            match compile_expression(me, &me_decls) {
                Err(issues) => {
                    let detail =
                        format!("messageExpression compilation failed: {}", issues.display());
                    r.diagnostics.push(invalid(
                        CEL_COMPILE,
                        &rpath.child("messageExpression"),
                        &value,
                        &detail,
                        me_span,
                    ));
                    ok = false;
                }
                Ok(c) if c.output_type() != Type::String => {
                    r.diagnostics.push(invalid(
                        CEL_RESULT_TYPE,
                        &rpath.child("messageExpression"),
                        &value,
                        "messageExpression must evaluate to a string",
                        me_span,
                    ));
                    ok = false;
                }
                Ok(c) => match super::plan::first_error(&c) {
                    Some(e) => {
                        r.diagnostics.push(invalid(
                            CEL_COMPILE,
                            &rpath.child("messageExpression"),
                            &value,
                            &format!("messageExpression instantiation failed: {e}"),
                            me_span,
                        ));
                        ok = false;
                    }
                    None => message_expression = Some(c),
                },
            }
        }
        if uses_old_self {
            if let Some(unc) = uncorrelatable {
                let f = rpath.child("rule");
                let detail = format!(
                    "oldSelf cannot be used on the uncorrelatable portion of the schema within {unc}"
                );
                let err = crate::diag::FieldError::invalid(f, rule.rule.as_str(), detail);
                r.diagnostics.push(
                    Diagnostic::from_field_error(CEL_TRANSITION_RULE, &err, rule_span).with_help(
                        "transition rules need every array above them to be x-kubernetes-list-type: map (and maps not to be atomic... granular or atomic maps correlate)",
                    ),
                );
                ok = false;
            }
        } else {
            optional_old_self_unused(rule, rpath, r);
        }
        let normalized_field_path = rule
            .field_path
            .as_deref()
            .filter(|p| !p.is_empty())
            .and_then(|p| fieldpath::valid_field_path(p, s, true).ok())
            .map(|(steps, _)| fieldpath::render(&steps));
        let _ = ok;
        if plan_error.is_some() {
            return;
        }
        r.program = Some(Arc::new(RuleProgram {
            rule: checked,
            message_expression,
            uses_old_self,
            normalized_field_path,
            env: rule_env.clone(),
            estimated: OnceLock::new(),
        }));
    }
}

/// `optionalOldSelf` set on a rule that (as far as the server knows) does not use
/// `oldSelf`.
fn optional_old_self_unused(rule: &ValidationRule, rpath: &FieldPath, r: &mut RuleCompileResult) {
    if let Some(v) = rule.optional_old_self {
        let f = rpath.child("optionalOldSelf");
        let err =
            crate::diag::FieldError::invalid(f, v, "may not be set if oldSelf is not used in rule");
        r.diagnostics.push(Diagnostic::from_field_error(
            CEL_TRANSITION_RULE,
            &err,
            rule.optional_old_self_span.unwrap_or(rule.span),
        ));
    }
}

/// Parse, check and run the environment's validators.
pub fn compile_expression(text: &str, decls: &Declarations<'_>) -> Result<CheckedAst, Issues> {
    let ast: Ast = super::parse::parse(text, decls.env.parse_options())?;
    let checked = super::checker::check(ast, decls)?;
    super::validate::validate(&checked, decls.env)?;
    Ok(checked)
}

/// The rule as the server prints it in `Invalid value:` (Go struct field order).
fn rule_json(rule: &ValidationRule) -> String {
    let s = |v: &str| gofmt::json_marshal(&serde_json::Value::String(v.to_string()));
    format!(
        "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{},\"FieldPath\":{},\"OptionalOldSelf\":{}}}",
        s(&rule.rule),
        s(rule.message.as_deref().unwrap_or("")),
        s(rule.message_expression.as_deref().unwrap_or("")),
        rule.reason
            .as_deref()
            .map(s)
            .unwrap_or_else(|| "null".into()),
        s(rule.field_path.as_deref().unwrap_or("")),
        rule.optional_old_self
            .map(|b| b.to_string())
            .unwrap_or_else(|| "null".into()),
    )
}

fn invalid(
    code: &'static str,
    field: &FieldPath,
    value_json: &str,
    detail: &str,
    span: Span,
) -> Diagnostic {
    let message = format!("{field}: Invalid value: {value_json}: {detail}");
    // Charged to the CRD's findings like every `FieldError`: a compile error repeats
    // the node's path (twice) and the rule, so 40,000 failing rules 400 levels deep
    // made 1.2 GB of findings.
    crate::diag::budget::charge(message.len() + field.as_str().len() + detail.len());
    Diagnostic::error(code, message)
        .with_field(field.to_string())
        .with_reason("FieldValueInvalid")
        .with_detail(detail)
        .with_span(span)
}

fn has_newlines(s: &str) -> bool {
    s.contains('\n') || s.contains('\r')
}

/// The checks the server makes on an entry before compiling it.
fn rule_field_checks(s: &Structural, rule: &ValidationRule, rpath: &FieldPath) -> Vec<Diagnostic> {
    use crate::diag::FieldError;
    let mut out = Vec::new();
    let mut push = |err: FieldError, span: Span, help: &str| {
        out.push(Diagnostic::from_field_error(CEL_RULE_INVALID, &err, span).with_help(help));
    };
    let trimmed_rule = rule.rule.trim();
    let message = rule.message.as_deref().unwrap_or("");
    let trimmed_msg = message.trim();
    let msg_span = rule.message_span.unwrap_or(rule.span);
    if trimmed_rule.is_empty() {
        push(
            FieldError::required(rpath.child("rule"), "rule is not specified"),
            rule.span,
            "write a CEL expression in `rule`",
        );
    } else if !message.is_empty() && trimmed_msg.is_empty() {
        push(
            FieldError::invalid(
                rpath.child("message"),
                message,
                "must be non-empty if specified",
            ),
            msg_span,
            "remove `message` or write one",
        );
    } else if has_newlines(trimmed_msg) {
        push(
            FieldError::invalid(
                rpath.child("message"),
                message,
                "must not contain line breaks",
            ),
            msg_span,
            "write the message on one line (use a folded `>-` scalar in YAML)",
        );
    } else if has_newlines(trimmed_rule) && trimmed_msg.is_empty() {
        push(
            FieldError::required(
                rpath.child("message"),
                "message must be specified if rule contains line breaks",
            ),
            rule.span,
            "add a `message` for a multi-line rule",
        );
    }
    if let Some(me) = &rule.message_expression
        && !me.is_empty()
        && me.trim().is_empty()
    {
        push(
            FieldError::required(
                rpath.child("messageExpression"),
                "messageExpression must be non-empty if specified",
            ),
            rule.message_expression_node
                .as_ref()
                .map(|n| n.span)
                .unwrap_or(rule.span),
            "remove `messageExpression` or write one",
        );
    }
    if let Some(reason) = &rule.reason
        && !SUPPORTED_REASONS.contains(&reason.as_str())
    {
        push(
            FieldError::not_supported(rpath.child("reason"), reason.as_str(), SUPPORTED_REASONS),
            rule.reason_span.unwrap_or(rule.span),
            "use one of the supported reasons",
        );
    }
    if let Some(fp) = &rule.field_path {
        let span = rule.field_path_span.unwrap_or(rule.span);
        if !fp.is_empty() && fp.trim().is_empty() {
            push(
                FieldError::invalid(
                    rpath.child("fieldPath"),
                    fp.as_str(),
                    "must be non-empty if specified",
                ),
                span,
                "remove `fieldPath` or write one",
            );
        }
        if has_newlines(fp) {
            push(
                FieldError::invalid(
                    rpath.child("fieldPath"),
                    fp.as_str(),
                    "must not contain line breaks",
                ),
                span,
                "write the path on one line",
            );
        }
        // A path on which the server crashes is reported by the CRD's schema checks.
        if !fp.is_empty()
            && fieldpath::valid_field_path(fp, s, true)
                .is_err_and(|e| e != fieldpath::NIL_SCHEMA_PANIC)
        {
            push(
                FieldError::invalid(
                    rpath.child("fieldPath"),
                    fp.as_str(),
                    "must be a valid path",
                ),
                span,
                "use a relative path to a declared field, like `.spec.replicas` or `['key']`; list indices are not allowed",
            );
        }
    }
    out
}
