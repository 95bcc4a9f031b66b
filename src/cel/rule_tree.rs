//! The compiled rules of a schema, arranged like the schema: what the evaluator walks
//! beside each object.
//!
//! Built once per compiled rule set (and cached with it by `CrdRules`), so that
//! evaluating a resource follows one child link per schema step and stops at once
//! where no rule lies below, instead of hashing its whole schema path at every node
//! of every object.

use super::compile::{RuleCompileResult, SchemaStep};
use super::node_steps::PerLink;
use super::reach::ValidatorReach;
use std::collections::HashMap;

/// One schema node: the rules compiled for it, and the children under which more
/// rules lie. A child is present only when its subtree holds at least one rule.
#[derive(Debug, Default)]
pub struct RuleTree {
    /// Indices into the compiled rule list, in its order.
    pub entries: Vec<usize>,
    /// Sorted by property name.
    properties: Vec<(String, RuleTree)>,
    items: Option<Box<RuleTree>>,
    additional_properties: Option<Box<RuleTree>>,
    /// By `allOf` index, sorted.
    all_of: Vec<(usize, RuleTree)>,
}

impl RuleTree {
    /// The tree of `compiled`; rules without a program or a runtime error (compile
    /// failures the CRD validation reports) are left out, as they never run, and so
    /// are rules on nodes the server's validator does not reach.
    ///
    /// Each link of the rules' steps is followed once (rules share their ancestors'
    /// links): walked from the root for each rule, a chain of 400 objects with a
    /// default each over 4,000 rules took 26 s, as a tree is built per default.
    pub fn new(compiled: &[RuleCompileResult], reach: &ValidatorReach<'_>) -> RuleTree {
        let mut reach = reach.memo();
        let mut nodes = Nodes::default();
        let mut index = PerLink::new(0);
        for (i, r) in compiled.iter().enumerate() {
            if r.program.is_none() && r.runtime_error.is_none() || !reach.reaches(&r.node) {
                continue;
            }
            let at = index.get(&r.node, |&parent, step| nodes.child(parent, step));
            nodes.entries[at].push(i);
        }
        nodes.into_tree()
    }

    /// True when no rule runs anywhere.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
            && self.properties.is_empty()
            && self.items.is_none()
            && self.additional_properties.is_none()
            && self.all_of.is_empty()
    }

    pub fn property(&self, name: &str) -> Option<&RuleTree> {
        self.properties
            .binary_search_by(|(k, _)| k.as_str().cmp(name))
            .ok()
            .map(|i| &self.properties[i].1)
    }

    pub fn items(&self) -> Option<&RuleTree> {
        self.items.as_deref()
    }

    pub fn additional_properties(&self) -> Option<&RuleTree> {
        self.additional_properties.as_deref()
    }

    pub fn all_of(&self, index: usize) -> Option<&RuleTree> {
        self.all_of
            .binary_search_by_key(&index, |(i, _)| *i)
            .ok()
            .map(|i| &self.all_of[i].1)
    }
}

/// The tree's nodes while it is built, by index (the root is 0; a child comes after
/// its parent): found by parent and step, so that links of their own with equal steps
/// meet at one node.
struct Nodes {
    entries: Vec<Vec<usize>>,
    parents: Vec<Option<(usize, SchemaStep)>>,
    by_parent_and_step: HashMap<(usize, SchemaStep), usize>,
}

impl Default for Nodes {
    fn default() -> Self {
        Nodes {
            entries: vec![Vec::new()],
            parents: vec![None],
            by_parent_and_step: HashMap::new(),
        }
    }
}

impl Nodes {
    fn child(&mut self, parent: usize, step: &SchemaStep) -> usize {
        let next = self.entries.len();
        let at = *self
            .by_parent_and_step
            .entry((parent, step.clone()))
            .or_insert(next);
        if at == next {
            self.entries.push(Vec::new());
            self.parents.push(Some((parent, step.clone())));
        }
        at
    }

    /// The nested tree, made from the leaves up (children come after their parents),
    /// without recursion.
    fn into_tree(self) -> RuleTree {
        let mut trees: Vec<Option<RuleTree>> = self
            .entries
            .into_iter()
            .map(|entries| {
                Some(RuleTree {
                    entries,
                    ..RuleTree::default()
                })
            })
            .collect();
        for (at, parent) in self.parents.into_iter().enumerate().rev() {
            let Some((parent, step)) = parent else {
                continue;
            };
            let Some(mut child) = trees[at].take() else {
                continue;
            };
            child.properties.sort_by(|(a, _), (b, _)| a.cmp(b));
            child.all_of.sort_by_key(|(i, _)| *i);
            let Some(tree) = trees[parent].as_mut() else {
                continue;
            };
            match step {
                SchemaStep::Property(name) => tree.properties.push((name.to_string(), child)),
                SchemaStep::Items => tree.items = Some(Box::new(child)),
                SchemaStep::AdditionalProperties => {
                    tree.additional_properties = Some(Box::new(child));
                }
                SchemaStep::AllOf(index) => tree.all_of.push((index, child)),
            }
        }
        let mut root = trees[0].take().unwrap_or_default();
        root.properties.sort_by(|(a, _), (b, _)| a.cmp(b));
        root.all_of.sort_by_key(|(i, _)| *i);
        root
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::cel::compile::RuntimeCompileError;
    use crate::cel::node_steps::NodeSteps;
    use crate::cel::testutil::structural;
    use crate::diag::{FieldPath, RuleFieldPath};

    fn rule_at(node: &NodeSteps) -> RuleCompileResult {
        RuleCompileResult {
            node: node.clone(),
            index: 0,
            field: RuleFieldPath::new(Arc::new(FieldPath::empty()), node.clone(), 0, "rule"),
            program: None,
            diagnostics: Vec::new(),
            error_offset: None,
            // Runs (as its failure) without a program.
            runtime_error: Some(RuntimeCompileError::Rule("x".into())),
        }
    }

    fn prop(name: &str) -> SchemaStep {
        SchemaStep::Property(name.into())
    }

    /// Rules meet at one node whether their steps share links or only equal them;
    /// each node keeps its rules in order and its properties sorted; unreached nodes
    /// are left out.
    #[test]
    fn rules_are_arranged_like_the_schema() {
        let s = structural(&json!({
            "type": "object",
            "properties": {
                "b": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
                "a": {"type": "string"},
                "u": {"x-kubernetes-preserve-unknown-fields": true, "properties": {"v": {"type": "string"}}}
            }
        }));
        let b_items = NodeSteps::root().child(prop("b")).child(SchemaStep::Items);
        let compiled = vec![
            rule_at(&b_items.child(prop("x"))),
            rule_at(&NodeSteps::root().child(prop("a"))),
            // Links of their own, equal to the first rule's steps.
            rule_at(
                &[prop("b"), SchemaStep::Items, prop("x")]
                    .into_iter()
                    .collect(),
            ),
            rule_at(&b_items),
            rule_at(&NodeSteps::root()),
            // Under a node without a CEL type: not reached.
            rule_at(&NodeSteps::root().child(prop("u")).child(prop("v"))),
        ];
        let tree = RuleTree::new(&compiled, &ValidatorReach::new(&s, false));
        assert_eq!(tree.entries, [4]);
        let names: Vec<&str> = tree.properties.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(tree.property("a").unwrap().entries, [1]);
        let items = tree.property("b").and_then(RuleTree::items).unwrap();
        assert_eq!(items.entries, [3]);
        assert_eq!(items.property("x").unwrap().entries, [0, 2]);
        assert!(tree.property("u").is_none());
    }
}
