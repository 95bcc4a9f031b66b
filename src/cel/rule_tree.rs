//! The compiled rules of a schema, arranged like the schema: what the evaluator walks
//! beside each object.
//!
//! Built once per compiled rule set (and cached with it by `CrdRules`), so that
//! evaluating a resource follows one child link per schema step and stops at once
//! where no rule lies below, instead of hashing its whole schema path at every node
//! of every object.

use super::compile::{RuleCompileResult, SchemaStep};
use super::reach::ValidatorReach;

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
    pub fn new(compiled: &[RuleCompileResult], reach: &ValidatorReach<'_>) -> RuleTree {
        let mut root = RuleTree::default();
        for (i, r) in compiled.iter().enumerate() {
            if r.program.is_none() && r.runtime_error.is_none() || !reach.reaches(&r.node) {
                continue;
            }
            let mut node = &mut root;
            for step in r.node.iter() {
                node = node.child_mut(step);
            }
            node.entries.push(i);
        }
        root
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

    fn child_mut(&mut self, step: &SchemaStep) -> &mut RuleTree {
        match step {
            SchemaStep::Property(name) => {
                let at = match self
                    .properties
                    .binary_search_by(|(k, _)| k.as_str().cmp(name))
                {
                    Ok(at) => at,
                    Err(at) => {
                        self.properties
                            .insert(at, (name.to_string(), RuleTree::default()));
                        at
                    }
                };
                &mut self.properties[at].1
            }
            SchemaStep::Items => self.items.get_or_insert_default(),
            SchemaStep::AdditionalProperties => self.additional_properties.get_or_insert_default(),
            SchemaStep::AllOf(index) => {
                let at = match self.all_of.binary_search_by_key(index, |(i, _)| *i) {
                    Ok(at) => at,
                    Err(at) => {
                        self.all_of.insert(at, (*index, RuleTree::default()));
                        at
                    }
                };
                &mut self.all_of[at].1
            }
        }
    }
}
