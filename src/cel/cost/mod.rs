//! The API server's static CEL cost check on CRD schemas (apiextensions
//! `validation.go`, `cel_validation.go`, `schema/cel/compilation.go`): each rule's
//! worst-case cost per call (cel-go's estimate, [`estimator`]), multiplied by how
//! many times the rule can run in one object (its cardinality), compared with the
//! per-rule limit, and summed against the per-schema limit.
//!
//! The cardinality of a rule is the product of `maxItems` / `maxProperties` of every
//! list and map above its schema node; when one of them is unset, it is instead the
//! most copies of the node's value that fit in a 3 MiB request
//! (`3145728 / (minimum serialized size + 1)`).

pub mod estimator;
pub use suggest::Suggestion;

/// What re-estimating a rule needs: its compiled expression and where it stands.
pub mod compile_support {
    use super::estimator::CostModel;
    use crate::cel::checker::CheckedAst;

    pub struct RuleInput<'a> {
        pub node: &'a crate::cel::node_steps::NodeSteps,
        pub checked: &'a CheckedAst,
        pub model: CostModel,
    }
}
pub mod limits;
pub mod runtime;
pub mod suggest;

use super::compile::{EstimatedCost, RuleCompileResult, RuleProgram, SchemaStep, compile_rules};
use super::env::KubeVersion;
use super::node_steps::{NodeSteps, PerLink};
use super::schema_types::{DeclType, MAX_REQUEST_SIZE_BYTES, escape, schema_decl_type};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::diag::{FieldPath, RuleFieldPath};
use crate::schema::structural::{Structural, StructuralOrBool};
use crate::source::Span;

pub use estimator::Range;
pub use limits::{
    CEL_COST_RULE, CEL_COST_TOTAL, CODES, LimitFinding, cost_error_message, limit_findings,
};

/// `StaticEstimatedCostLimit`: the most one rule (times its cardinality) may cost.
pub const PER_RULE_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`: the most all rules of one schema may cost together.
pub const PER_SCHEMA_LIMIT: u64 = 100_000_000;

/// One list or map above a rule's node, as a rule's cost keeps it: where it is, as a
/// number of the node's steps. Kept with its paths, the chain of a node under D nested
/// lists was D paths of up to D steps (4,000 nodes with rules under 300 nested lists,
/// a 660 KB CRD, held 2 GB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CardinalityLevel {
    /// How many of the rule node's steps lead to the list or map.
    pub depth: usize,
    /// `maxItems` for lists, `maxProperties` for maps.
    pub keyword: &'static str,
    /// The value set in the schema, if any.
    pub max: Option<u64>,
}

/// One list or map above a rule's node, as it bounds the rule's cardinality.
#[derive(Clone, Debug, PartialEq)]
pub struct CardinalityStep {
    /// Where the list or map is (`spec.validation.openAPIV3Schema.properties[spec]…`).
    pub schema_path: FieldPath,
    /// The data path of its elements, for people (`spec.rules[*]`, `spec.labels[*]`).
    pub data_path: String,
    /// `maxItems` for lists, `maxProperties` for maps.
    pub keyword: &'static str,
    /// The value set in the schema, if any.
    pub max: Option<u64>,
}

/// The cost facts of one `x-kubernetes-validations` entry.
#[derive(Clone, Debug)]
pub struct RuleCost {
    /// Steps from the root to the rule's schema node (shared by the node's rules and
    /// the nodes below).
    pub node: NodeSteps,
    /// Index in the node's `x-kubernetes-validations`.
    pub index: usize,
    /// `…x-kubernetes-validations[i].rule`.
    pub field: RuleFieldPath,
    pub rule: String,
    /// The rule string in the file.
    pub span: Span,
    /// Whether the rule compiled (rules that do not compile cost 0).
    pub compiled: bool,
    /// Worst-case cost of one evaluation (`MaxCost`).
    pub max_cost: u64,
    /// The cardinality used when an ancestor is unbounded: `3 MiB / (min size + 1)`.
    pub rule_max_cardinality: u64,
    /// The product of every ancestor's bound, or `None` when one is unbounded.
    pub schema_max_cardinality: Option<u64>,
    /// What the server compares with [`PER_RULE_LIMIT`]: `max_cost` × cardinality.
    pub estimated_cost: u64,
    /// The lists and maps above the node (shared by nodes with the same ones); see
    /// [`RuleCost::chain`].
    pub levels: Arc<[CardinalityLevel]>,
    /// The minimum serialized size of the node's values (for explanations).
    pub min_serialized_size: i64,
    /// The messageExpression's worst-case cost (not multiplied by cardinality, as the
    /// server does), when there is one that compiled.
    pub message_expression: Option<MessageExpressionCost>,
}

impl RuleCost {
    /// The data path of the node the rule validates (`spec.rules[*]`), made from its
    /// steps when asked for: kept per node, it was as long as the node is deep (20,000
    /// nodes with rules under a 50,000-character property name: 1 GB).
    pub fn data_path(&self) -> String {
        data_path_of(&self.node)
    }

    /// The lists and maps above the node, with their paths, made when asked for (in
    /// one walk down the node's steps).
    pub fn chain(&self) -> Vec<CardinalityStep> {
        let mut out = Vec::with_capacity(self.levels.len());
        let mut levels = self.levels.iter().peekable();
        let mut schema_path = self.field.base().clone();
        let mut data = String::new();
        for (depth, step) in self.node.iter().enumerate() {
            let Some(level) = levels.next_if(|l| l.depth == depth) else {
                crate::diag::path::push_schema_step(&mut schema_path, step);
                push_data_step(&mut data, step);
                continue;
            };
            let list_path = schema_path.clone();
            crate::diag::path::push_schema_step(&mut schema_path, step);
            push_data_step(&mut data, step);
            out.push(CardinalityStep {
                schema_path: list_path,
                data_path: data.clone(),
                keyword: level.keyword,
                max: level.max,
            });
        }
        out
    }
}

#[derive(Clone, Debug)]
pub struct MessageExpressionCost {
    /// `…x-kubernetes-validations[i].messageExpression`.
    pub field: RuleFieldPath,
    pub span: Span,
    pub max_cost: u64,
}

impl RuleCost {
    /// The cardinality the estimate was multiplied by.
    pub fn cardinality(&self) -> u64 {
        self.schema_max_cardinality
            .unwrap_or(self.rule_max_cardinality)
    }
}

/// The cost facts of one version's schema.
#[derive(Clone, Debug)]
pub struct SchemaCost {
    /// The schema's path (`spec.versions[0].schema.openAPIV3Schema`).
    pub base: FieldPath,
    pub rules: Vec<RuleCost>,
    /// The sum the server compares with [`PER_SCHEMA_LIMIT`] (rules and messageExpressions).
    pub total: u64,
    /// The (at most 4) costliest contributions of at least 1% of the schema limit,
    /// costliest first: what the server names when the total is over, with the span
    /// of the rule or messageExpression.
    pub most_expensive: Vec<(FieldPath, u64, Span)>,
}

/// Compiles every rule under `root` and estimates its cost as the server does.
/// `base` is the schema's field path (`spec.validation.openAPIV3Schema` or
/// `spec.versions[i].schema.openAPIV3Schema`).
pub fn estimate(root: &Structural, version: KubeVersion, base: &FieldPath) -> SchemaCost {
    let compiled = compile_rules(root, version, base);
    estimate_compiled(root, &compiled, base, version)
}

/// Every cost-limit error of one version's schema, as the server reports them when
/// the CRD is created (per rule, per messageExpression, and the schema total), for
/// `crd::Hooks::cel_total_cost`. `root_path` is the schema's field path. Nothing
/// when the schema is not structural (the server then compiles no rules).
pub fn schema_limit_findings(
    root: &crate::model::schema::SchemaProps,
    root_path: &FieldPath,
    version: KubeVersion,
) -> Vec<LimitFinding> {
    let Ok(ss) = crate::schema::structural::from_props(root) else {
        return Vec::new();
    };
    limit_findings(&estimate(&ss, version, root_path), false)
}

/// Like [`estimate`], reusing rules already compiled with [`compile_rules`].
pub fn estimate_compiled(
    root: &Structural,
    compiled: &[RuleCompileResult],
    base: &FieldPath,
    version: KubeVersion,
) -> SchemaCost {
    let model = estimator::CostModel::for_server(version);
    let mut out = SchemaCost {
        base: base.clone(),
        rules: Vec::new(),
        total: 0,
        most_expensive: Vec::new(),
    };
    // Rules share their schema's declared types: build each once per schema.
    let cache = DeclCache::default();
    // A node's context, with the parts its rules keep, is made once for all its rules
    // (which `server_order` keeps together): made per rule, 40,000 rules at depth 400
    // took 5.4 s and 1.7 GB, the paths of each rule's node rebuilt and kept per rule.
    let mut node: Option<(&RuleCompileResult, Option<SharedContext<'_>>)> = None;
    // The last chain made: siblings (which `server_order` keeps together) have the
    // same lists and maps above them.
    let mut last_levels: Arc<[CardinalityLevel]> = Arc::new([]);
    let mut contexts = NodeContexts::new(root, &cache);
    for r in server_order(compiled) {
        let same_node = node.as_ref().is_some_and(|(first, _)| first.node == r.node);
        if !same_node {
            let shared = contexts.get(&r.node).map(|ctx| {
                if *last_levels != *ctx.chain {
                    last_levels = ctx.chain.as_slice().into();
                }
                SharedContext {
                    levels: last_levels.clone(),
                    ctx,
                }
            });
            node = Some((r, shared));
        }
        let Some((first, Some(shared))) = &node else {
            continue;
        };
        let ctx = &shared.ctx;
        let Some(rule) = ctx.schema.x_validations.get(r.index) else {
            continue;
        };
        let (max_cost, me) = match (&r.program, ctx.decl()) {
            (Some(p), Some(decl)) => {
                let costs = estimated(p, decl, model);
                let me = costs
                    .message_expression
                    .map(|max_cost| MessageExpressionCost {
                        field: r.field.sibling("messageExpression"),
                        span: rule
                            .message_expression_node
                            .as_ref()
                            .map(|n| n.span)
                            .unwrap_or(rule.span),
                        max_cost,
                    });
                (costs.rule, me)
            }
            _ => (0, None),
        };
        let min_size = ctx.decl().map(|d| d.min_serialized_size).unwrap_or(0);
        let rule_max_cardinality = max_cardinality(min_size);
        let card = ctx.cardinality.unwrap_or(rule_max_cardinality);
        let estimated_cost = multiply_with_overflow_guard(max_cost, card);
        let rule_span = rule.rule_node.as_ref().map(|n| n.span).unwrap_or(rule.span);
        observe(&mut out, &r.field, estimated_cost, rule_span);
        if let Some(me) = &me {
            observe(&mut out, &me.field, me.max_cost, me.span);
        }
        out.rules.push(RuleCost {
            node: first.node.clone(),
            index: r.index,
            field: r.field.clone(),
            rule: rule.rule.clone(),
            span: rule_span,
            compiled: r.program.is_some(),
            max_cost,
            rule_max_cardinality,
            schema_max_cardinality: ctx.cardinality,
            estimated_cost,
            levels: shared.levels.clone(),
            min_serialized_size: min_size,
            message_expression: me,
        });
    }
    out
}

/// A node's [`NodeContext`] and the parts of it that its rules' costs share.
struct SharedContext<'a> {
    ctx: NodeContext<'a>,
    levels: Arc<[CardinalityLevel]>,
}

/// The maximum costs of a program on a node of type `decl`, estimated once per program
/// and type: a program shared by identical rules on identically typed nodes
/// ([`RuleProgram::estimated`]) is estimated for the first of them.
fn estimated(program: &RuleProgram, decl: &DeclType, model: estimator::CostModel) -> EstimatedCost {
    let fingerprint = decl.fingerprint();
    if let Some(known) = program.estimated.get()
        && known.decl == fingerprint
        && known.model == model
    {
        return *known;
    }
    let costs = EstimatedCost {
        decl: fingerprint,
        model,
        rule: estimator::estimate_cost(&program.rule, Some(decl), model).max,
        message_expression: program
            .message_expression
            .as_ref()
            .map(|m| estimator::estimate_cost(m, Some(decl), model).max),
    };
    // Kept for the first type only (a program is shared between nodes of one type).
    let _ = program.estimated.set(costs);
    costs
}

impl SchemaCost {
    /// Keeps the rules (and their messageExpressions) of the nodes `keep` accepts and
    /// recomputes the total as the server adds it up: only for nodes it compiles.
    pub fn retain(&mut self, mut keep: impl FnMut(&RuleCost) -> bool) {
        let rules = std::mem::take(&mut self.rules);
        self.total = 0;
        self.most_expensive.clear();
        // `keep` sees each rule once, in order.
        for r in rules.into_iter().filter(|r| keep(r)) {
            observe(self, &r.field, r.estimated_cost, r.span);
            if let Some(me) = &r.message_expression {
                observe(self, &me.field, me.max_cost, me.span);
            }
            self.rules.push(r);
        }
    }
}

/// The rules in the order the server's CRD validation observes their costs: it
/// validates a node's `additionalProperties`, then its `properties`, then its `items`,
/// and only then the node's own rules (a post-order walk). The order decides which of
/// equally expensive rules are named as the most expensive ones. (The server visits
/// sibling properties in Go's random map order; they keep the file's order here.)
fn server_order(compiled: &[RuleCompileResult]) -> Vec<&RuleCompileResult> {
    /// The schema nodes that have rules, as a tree in the walk's order.
    #[derive(Default)]
    struct Node<'a> {
        children: Vec<(&'a SchemaStep, Node<'a>)>,
        /// Position of each step in `children`: a node can have tens of thousands of
        /// children with rules, and finding each rule's by scanning was quadratic.
        child_at: HashMap<&'a SchemaStep, usize>,
        rules: Vec<&'a RuleCompileResult>,
    }
    fn rank(step: &SchemaStep) -> u8 {
        match step {
            SchemaStep::AdditionalProperties => 0,
            SchemaStep::Property(_) => 1,
            SchemaStep::Items => 2,
            SchemaStep::AllOf(_) => 3,
        }
    }
    fn emit<'a>(node: &mut Node<'a>, out: &mut Vec<&'a RuleCompileResult>) {
        // Stable: sibling properties keep the file's order.
        node.children.sort_by_key(|(step, _)| rank(step));
        for (_, child) in &mut node.children {
            emit(child, out);
        }
        out.extend(node.rules.iter().copied());
    }
    let mut root = Node::default();
    for r in compiled {
        let mut at = &mut root;
        for step in r.node.iter() {
            let i = *at.child_at.entry(step).or_insert_with(|| {
                at.children.push((step, Node::default()));
                at.children.len() - 1
            });
            at = &mut at.children[i].1;
        }
        at.rules.push(r);
    }
    let mut out = Vec::with_capacity(compiled.len());
    emit(&mut root, &mut out);
    out
}

/// `TotalCost.ObserveExpressionCost`.
fn observe(out: &mut SchemaCost, path: &RuleFieldPath, cost: u64, span: Span) {
    out.total = out.total.saturating_add(cost);
    if cost < PER_SCHEMA_LIMIT / 100 {
        return;
    }
    // A stable insertion keeps equal costs in walk order, like Go's insertion sort on
    // these short slices.
    let pos = out
        .most_expensive
        .iter()
        .position(|(_, c, _)| *c < cost)
        .unwrap_or(out.most_expensive.len());
    // (Past the fourth, not kept: the path is built only for the ones that are.)
    if pos >= 4 {
        return;
    }
    out.most_expensive.insert(pos, (path.to_path(), cost, span));
    out.most_expensive.truncate(4);
}

/// `maxCardinality`: how many values of at least `min_size` bytes (plus a comma) fit
/// in a request.
pub fn max_cardinality(min_size: i64) -> u64 {
    let sz = min_size + 1;
    if sz <= 0 {
        return u64::MAX;
    }
    (MAX_REQUEST_SIZE_BYTES / sz) as u64
}

/// `multiplyWithOverflowGuard`.
pub fn multiply_with_overflow_guard(base: u64, cardinality: u64) -> u64 {
    if base == 0 {
        0
    } else {
        base.saturating_mul(cardinality)
    }
}

/// What the server knows about a rule's schema node.
pub(crate) struct NodeContext<'a> {
    pub schema: &'a Structural,
    /// The declared type the rule is compiled against (from the parent's type when
    /// an ancestor has rules, as `CELSchemaContext.TypeInfo` does); see [`Self::decl`].
    decl: Option<DeclRef>,
    /// Steps from the node whose type [`Self::decl`] was taken from down to this one
    /// (0 when it is this node's own): the depth at which this node's type was built.
    pub decl_depth: usize,
    /// `CELSchemaContext.MaxCardinality`.
    pub cardinality: Option<u64>,
    pub chain: Vec<CardinalityLevel>,
}

impl NodeContext<'_> {
    /// The declared type the rule is compiled against.
    pub fn decl(&self) -> Option<&DeclType> {
        self.decl.as_ref().map(DeclRef::get)
    }
}

/// Declared types of schema nodes (`SchemaDeclType`), built at most once per node:
/// every rule below a node with rules sees (part of) that node's type, and building
/// and cloning it per rule made the cost check quadratic in the schema size.
#[derive(Default)]
pub(crate) struct DeclCache {
    types: RefCell<HashMap<DeclKey, Option<Rc<DeclType>>>>,
}

/// A schema node (by address: the cache lives only while the schema is borrowed) and
/// whether it is the resource root.
type DeclKey = (*const Structural, bool);

impl DeclCache {
    fn get(&self, node: &Structural, is_resource_root: bool) -> Option<DeclRef> {
        let key = (node as *const Structural, is_resource_root);
        let ty = self
            .types
            .borrow_mut()
            .entry(key)
            .or_insert_with(|| schema_decl_type(node, is_resource_root).map(Rc::new))
            .clone()?;
        Some(DeclRef {
            root: ty,
            hops: None,
        })
    }
}

/// A declared type inside a cached one: the cached root and the way down to it (a
/// link to the way to its parent, shared: a copy per node was D hops each).
#[derive(Clone)]
struct DeclRef {
    root: Rc<DeclType>,
    hops: Option<Rc<HopLink>>,
}

struct HopLink {
    parent: Option<Rc<HopLink>>,
    hop: DeclHop,
}

#[derive(Clone)]
enum DeclHop {
    /// The field of this escaped name.
    Field(String),
    /// The element type of a list or map.
    Elem,
}

impl DeclRef {
    fn get(&self) -> &DeclType {
        let mut hops = Vec::new();
        let mut at = self.hops.as_deref();
        while let Some(link) = at {
            hops.push(&link.hop);
            at = link.parent.as_deref();
        }
        let mut ty: &DeclType = &self.root;
        for hop in hops.into_iter().rev() {
            let next = match hop {
                DeclHop::Field(name) => ty.field(name).map(|f| &f.ty),
                DeclHop::Elem => ty.elem(),
            };
            // Hops are only added after checking that they exist.
            match next {
                Some(next) => ty = next,
                None => break,
            }
        }
        ty
    }

    fn down(&self, hop: DeclHop) -> Option<DeclRef> {
        let ty = self.get();
        let exists = match &hop {
            DeclHop::Field(name) => ty.field(name).is_some(),
            DeclHop::Elem => ty.elem().is_some(),
        };
        exists.then(|| DeclRef {
            root: self.root.clone(),
            hops: Some(Rc::new(HopLink {
                parent: self.hops.clone(),
                hop,
            })),
        })
    }
}

/// `extractMaxElements`: by how much a schema multiplies its children's cardinality.
fn extract_max_elements(s: &Structural) -> Option<u64> {
    extract_max_elements_with(s, None)
}

/// [`extract_max_elements`] with `bound` (`maxItems` or `maxProperties`, and a value)
/// in place of the schema's own.
pub(crate) fn extract_max_elements_with(s: &Structural, bound: Option<(&str, i64)>) -> Option<u64> {
    let vv = s.value_validation.as_deref();
    let max = |keyword: &str, own: Option<i64>| match bound {
        Some((k, v)) if k == keyword => Some(v),
        _ => own,
    };
    match s.generic.type_.as_ref() {
        "object" if s.additional_properties.is_some() => {
            max("maxProperties", vv.and_then(|v| v.max_properties)).map(|n| n.max(0) as u64)
        }
        "array" => max("maxItems", vv.and_then(|v| v.max_items)).map(|n| n.max(0) as u64),
        _ => Some(1),
    }
}

/// What the server knows about the node at `steps`, walked from the root: the
/// definition [`NodeContexts`] (and the cost search's trials) are tested against.
#[cfg(test)]
pub(crate) fn node_context<'a, 's>(
    root: &'a Structural,
    steps: impl IntoIterator<Item = &'s SchemaStep>,
) -> Option<NodeContext<'a>> {
    let cache = DeclCache::default();
    let mut walk = ContextWalk::start(root, &cache);
    for step in steps {
        walk = walk.step(step, &cache)?;
    }
    Some(walk.context())
}

/// The contexts of many nodes that share links (the rules of a schema),
/// each link followed once: from the root for each node, with a type lookup from its
/// cached root at each step, a chain 300 deep with a rule at each level over 1,000
/// rules took 45 million lookups.
pub(crate) struct NodeContexts<'a, 'c> {
    cache: &'c DeclCache,
    walks: PerLink<Option<ContextWalk<'a>>>,
}

impl<'a, 'c> NodeContexts<'a, 'c> {
    pub(crate) fn new(root: &'a Structural, cache: &'c DeclCache) -> Self {
        NodeContexts {
            cache,
            walks: PerLink::new(Some(ContextWalk::start(root, cache))),
        }
    }

    pub(crate) fn get(&mut self, node: &NodeSteps) -> Option<NodeContext<'a>> {
        let cache = self.cache;
        self.walks
            .get(node, |walk, step| walk.as_ref()?.step(step, cache))
            .map(ContextWalk::context)
    }
}

/// A node's context after some steps from the root.
#[derive(Clone)]
pub(crate) struct ContextWalk<'a> {
    cur: &'a Structural,
    /// Steps taken.
    depth: usize,
    /// Whether this node or an ancestor has rules.
    in_scope: bool,
    decl: Option<DeclRef>,
    /// [`NodeContext::decl_depth`].
    decl_depth: usize,
    card: Option<u64>,
    /// The lists and maps above, last first (a link to the parent's: copied per step,
    /// a walk down 300 nested lists copied 45,000 levels).
    chain: Option<Rc<LevelLink>>,
}

struct LevelLink {
    parent: Option<Rc<LevelLink>>,
    level: CardinalityLevel,
}

impl<'a> ContextWalk<'a> {
    fn start(root: &'a Structural, cache: &DeclCache) -> Self {
        let in_scope = !root.x_validations.is_empty();
        ContextWalk {
            cur: root,
            depth: 0,
            in_scope,
            decl: if in_scope {
                cache.get(root, true)
            } else {
                None
            },
            decl_depth: 0,
            card: Some(1),
            chain: None,
        }
    }

    /// The child at `step`; `None` when there is none (or the step is into `allOf`).
    fn step(&self, step: &SchemaStep, cache: &DeclCache) -> Option<Self> {
        let parent = self.cur;
        let depth = self.depth;
        let decl = &self.decl;
        let mut chain = self.chain.clone();
        // A list or map adds a level; other steps share the parent's levels.
        let mut add_level = |level: CardinalityLevel| {
            chain = Some(Rc::new(LevelLink {
                parent: chain.take(),
                level,
            }));
        };
        let card = match (self.card, extract_max_elements(parent)) {
            (Some(c), Some(m)) => Some(multiply_with_overflow_guard(c, m)),
            _ => None,
        };
        let (child, from_parent): (&Structural, Option<DeclRef>) = match step {
            SchemaStep::Property(name) => {
                let child = parent.property(name)?;
                let d = decl.as_ref().and_then(|d| {
                    if parent.properties.is_empty() {
                        return None;
                    }
                    escape(name).and_then(|e| d.down(DeclHop::Field(e.into_owned())))
                });
                (child, d)
            }
            SchemaStep::Items => {
                let child = parent.items.as_deref()?;
                add_level(CardinalityLevel {
                    depth,
                    keyword: "maxItems",
                    max: parent
                        .value_validation
                        .as_deref()
                        .and_then(|v| v.max_items)
                        .map(|n| n.max(0) as u64),
                });
                (child, decl.as_ref().and_then(|d| d.down(DeclHop::Elem)))
            }
            SchemaStep::AdditionalProperties => {
                let Some(StructuralOrBool::Structural(child)) = &parent.additional_properties
                else {
                    return None;
                };
                add_level(CardinalityLevel {
                    depth,
                    keyword: "maxProperties",
                    max: parent
                        .value_validation
                        .as_deref()
                        .and_then(|v| v.max_properties)
                        .map(|n| n.max(0) as u64),
                });
                (child, decl.as_ref().and_then(|d| d.down(DeclHop::Elem)))
            }
            // Rules inside allOf are never compiled (or costed) when a CRD is created.
            SchemaStep::AllOf(_) => return None,
        };
        let parent_in_scope = self.in_scope;
        let in_scope = parent_in_scope || !child.x_validations.is_empty();
        let (decl, decl_depth) = if !in_scope {
            (None, 0)
        } else if parent_in_scope && from_parent.is_some() {
            (from_parent, self.decl_depth + 1)
        } else {
            (cache.get(child, child.extensions.x_embedded_resource), 0)
        };
        Some(ContextWalk {
            cur: child,
            depth: depth + 1,
            in_scope,
            decl,
            decl_depth,
            card,
            chain,
        })
    }

    fn context(self) -> NodeContext<'a> {
        let mut chain = Vec::new();
        let mut at = self.chain.as_deref();
        while let Some(link) = at {
            chain.push(link.level);
            at = link.parent.as_deref();
        }
        chain.reverse();
        NodeContext {
            schema: self.cur,
            decl: self.decl,
            decl_depth: self.decl_depth,
            cardinality: self.card,
            chain,
        }
    }
}

/// The data path for people of the node at `steps` (`spec.rules[*].name`, `<root>`).
pub(crate) fn data_path_of<'s>(steps: impl IntoIterator<Item = &'s SchemaStep>) -> String {
    let mut data = String::new();
    for step in steps {
        push_data_step(&mut data, step);
    }
    display_data(&data).to_string()
}

fn display_data(d: &str) -> &str {
    if d.is_empty() { "<root>" } else { d }
}

/// Extends the data path `data` (empty at the root) by one schema step: a property
/// name, or the elements of a list or map (`spec.rules[*]`, `<root>[*]`). Rules under
/// `allOf` have no cost entry: such a step adds nothing.
fn push_data_step(data: &mut String, step: &SchemaStep) {
    match step {
        SchemaStep::Property(name) => {
            if !data.is_empty() {
                data.push('.');
            }
            data.push_str(name);
        }
        SchemaStep::Items | SchemaStep::AdditionalProperties => push_all_elements(data),
        SchemaStep::AllOf(_) => {}
    }
}

/// `data` becomes the path of its elements (`spec.rules[*]`, `<root>[*]`).
fn push_all_elements(data: &mut String) {
    if data.is_empty() {
        data.push_str("<root>");
    }
    data.push_str("[*]");
}

#[cfg(test)]
mod runtime_tests;
#[cfg(test)]
mod tests;
