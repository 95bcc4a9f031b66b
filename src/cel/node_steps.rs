//! Where a schema node with rules is: its steps from the root, as a link to the
//! parent's steps. The nodes below a node share its links, so N nodes D levels deep
//! keep N + D links, not N × D steps (a list of steps per node, 20,000 nodes with
//! rules under 900 nested lists, a 3 MB CRD, held 430 MB).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::compile::SchemaStep;

/// The steps from the root to a schema node; cloning shares them.
#[derive(Clone, Default)]
pub struct NodeSteps(Option<Arc<Link>>);

struct Link {
    parent: NodeSteps,
    step: SchemaStep,
    /// Steps from the root to here, this one included.
    len: usize,
}

impl NodeSteps {
    /// The root: no steps.
    pub fn root() -> Self {
        NodeSteps(None)
    }

    /// These steps, then `step`.
    pub fn child(&self, step: SchemaStep) -> Self {
        NodeSteps(Some(Arc::new(Link {
            parent: self.clone(),
            step,
            len: self.len() + 1,
        })))
    }

    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |l| l.len)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The steps from the root, in order (gathered on each call: O(len)).
    pub fn iter(&self) -> std::vec::IntoIter<&SchemaStep> {
        let mut steps = Vec::with_capacity(self.len());
        let mut at = self;
        while let Some(link) = &at.0 {
            steps.push(&link.step);
            at = &link.parent;
        }
        steps.reverse();
        steps.into_iter()
    }

    /// The steps as a list of their own, for code that walks slices.
    pub fn to_vec(&self) -> Vec<SchemaStep> {
        self.iter().cloned().collect()
    }

    /// The first `len` steps (the ancestor that far from the root), shared.
    pub fn prefix(&self, len: usize) -> NodeSteps {
        let mut at = self;
        while at.len() > len {
            match &at.0 {
                Some(link) => at = &link.parent,
                None => break,
            }
        }
        at.clone()
    }

    /// Whether both are the same links (not only equal steps).
    pub fn ptr_eq(&self, other: &NodeSteps) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// A value for each node, computed from its parent's value and its last step, each
/// link once: for many nodes that share their ancestors (the rules of one schema),
/// O(links) in all instead of O(steps) per node. Equal steps in links of their own
/// are computed apart, so values must depend on the steps only.
pub struct PerLink<T> {
    root: T,
    /// By link address; the key's `NodeSteps` is kept so that its address cannot be
    /// reused by another link while the value is held.
    memo: std::collections::HashMap<usize, (NodeSteps, T)>,
}

impl<T: Clone> PerLink<T> {
    /// `root`: the value of the root (no steps).
    pub fn new(root: T) -> Self {
        PerLink {
            root,
            memo: std::collections::HashMap::new(),
        }
    }

    /// The value of `steps`, where a link's value is `step(parent's value, its step)`.
    pub fn get(&mut self, steps: &NodeSteps, mut step: impl FnMut(&T, &SchemaStep) -> T) -> T {
        // Up to the nearest link already computed (or the root), then down.
        let mut pending = Vec::new();
        let mut at = steps;
        let mut value = loop {
            let Some(link) = &at.0 else {
                break self.root.clone();
            };
            if let Some((_, value)) = self.memo.get(&link_address(link)) {
                break value.clone();
            }
            pending.push(at);
            at = &link.parent;
        };
        for node in pending.into_iter().rev() {
            let Some(link) = &node.0 else { continue };
            value = step(&value, &link.step);
            self.memo
                .insert(link_address(link), (node.clone(), value.clone()));
        }
        value
    }
}

fn link_address(link: &Arc<Link>) -> usize {
    Arc::as_ptr(link) as usize
}

impl<'a> IntoIterator for &'a NodeSteps {
    type Item = &'a SchemaStep;
    type IntoIter = std::vec::IntoIter<&'a SchemaStep>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl FromIterator<SchemaStep> for NodeSteps {
    fn from_iter<I: IntoIterator<Item = SchemaStep>>(steps: I) -> Self {
        steps
            .into_iter()
            .fold(NodeSteps::root(), |node, step| node.child(step))
    }
}

impl PartialEq for NodeSteps {
    fn eq(&self, other: &NodeSteps) -> bool {
        if self.len() != other.len() {
            return false;
        }
        // Walked up together: equal lengths stay equal, and shared links end it.
        let (mut a, mut b) = (self, other);
        loop {
            if a.ptr_eq(b) {
                return true;
            }
            match (&a.0, &b.0) {
                (Some(x), Some(y)) => {
                    if x.step != y.step {
                        return false;
                    }
                    a = &x.parent;
                    b = &y.parent;
                }
                _ => return false,
            }
        }
    }
}

impl Eq for NodeSteps {}

impl Hash for NodeSteps {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for step in self {
            step.hash(state);
        }
    }
}

impl fmt::Debug for NodeSteps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Drop for NodeSteps {
    /// Frees a chain the last owner lets go of one link at a time: dropped
    /// recursively, a chain 1,000 links long took 1,000 stack frames.
    fn drop(&mut self) {
        let mut next = self.0.take();
        while let Some(link) = next {
            match Arc::try_unwrap(link) {
                Ok(mut link) => next = link.parent.0.take(),
                Err(_) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(names: &[&str]) -> NodeSteps {
        names
            .iter()
            .map(|n| match *n {
                "items" => SchemaStep::Items,
                "additionalProperties" => SchemaStep::AdditionalProperties,
                n => SchemaStep::Property(n.into()),
            })
            .collect()
    }

    #[test]
    fn iterates_from_the_root_and_shares_prefixes() {
        let parent = steps(&["spec", "items"]);
        let a = parent.child(SchemaStep::Property("a".into()));
        let b = parent.child(SchemaStep::AdditionalProperties);
        assert_eq!(
            a.iter().cloned().collect::<Vec<_>>(),
            vec![
                SchemaStep::Property("spec".into()),
                SchemaStep::Items,
                SchemaStep::Property("a".into())
            ]
        );
        assert_eq!((a.len(), b.len(), NodeSteps::root().len()), (3, 3, 0));
        assert!(a.prefix(2).ptr_eq(&parent) && b.prefix(2).ptr_eq(&parent));
        assert!(a.prefix(0).is_empty());
        assert_eq!(a.prefix(5), a);
    }

    #[test]
    fn equal_steps_are_equal_whether_shared_or_not() {
        let a = steps(&["spec", "items", "x"]);
        let same = steps(&["spec", "items", "x"]);
        assert!(!a.ptr_eq(&same));
        assert_eq!(a, same);
        assert_ne!(a, steps(&["spec", "items", "y"]));
        assert_ne!(a, steps(&["spec", "items"]));
        assert_ne!(a, steps(&["other", "items", "x"]));
        let hash = |s: &NodeSteps| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            s.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&a), hash(&same));
    }

    #[test]
    fn per_link_values_are_computed_once_per_link() {
        let parent = steps(&["spec", "items"]);
        let a = parent.child(SchemaStep::Property("a".into()));
        let b = parent.child(SchemaStep::Property("b".into()));
        let apart = steps(&["spec", "items", "a"]);
        let mut calls = Vec::new();
        let mut depth = PerLink::new(String::new());
        let mut get = |node: &NodeSteps| {
            depth.get(node, |parent, step| {
                calls.push(format!("{step:?}"));
                format!("{parent}/{step:?}")
            })
        };
        assert_eq!(get(&a), "/Property(\"spec\")/Items/Property(\"a\")");
        assert_eq!(get(&b), "/Property(\"spec\")/Items/Property(\"b\")");
        assert_eq!(get(&a), "/Property(\"spec\")/Items/Property(\"a\")");
        assert_eq!(get(&parent), "/Property(\"spec\")/Items");
        assert_eq!(get(&NodeSteps::root()), "");
        // Links of its own: computed again, to the same value.
        assert_eq!(get(&apart), "/Property(\"spec\")/Items/Property(\"a\")");
        assert_eq!(
            calls,
            [
                "Property(\"spec\")",
                "Items",
                "Property(\"a\")",
                "Property(\"b\")",
                "Property(\"spec\")",
                "Items",
                "Property(\"a\")"
            ]
        );
    }

    #[test]
    fn a_long_chain_is_dropped_without_deep_recursion() {
        // On a thread with a small stack, dropped link by link.
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let mut node = NodeSteps::root();
                for _ in 0..100_000 {
                    node = node.child(SchemaStep::Items);
                }
                assert_eq!(node.len(), 100_000);
                drop(node);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
