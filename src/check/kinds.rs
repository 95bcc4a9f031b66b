//! Which kinds a file's text may hold resources of, read off the bytes before parsing.
//!
//! The pipeline prepares a CRD for resources (structural schemas, validators) while
//! its tree is still in the caches, and then drops the tree, but only for kinds some
//! file mentions. These scans decide that. They are a shortcut and may be wrong in
//! either direction: a kind found that no resource has costs one needless preparation;
//! a kind missed (written with escapes, an alias, a multi-line scalar, …) is noticed
//! when a resource needs the CRD, and the run starts over preparing every CRD, so the
//! result never depends on them.

use std::collections::HashSet;

/// The kinds found, bounded: a file of millions of distinct made-up kinds must not
/// make a set larger than itself. Past [`Kinds::CAP`] distinct kinds (real repositories
/// have hundreds) the set gives up and answers "maybe" for every kind, which only costs
/// preparing every CRD.
#[derive(Default)]
pub struct Kinds {
    set: HashSet<String>,
    overflowed: bool,
}

impl Kinds {
    pub const CAP: usize = 10_000;
    const MAX_KIND_LEN: usize = 63;

    /// Whether resources of `kind` may be in the files scanned.
    pub fn may_contain(&self, kind: &str) -> bool {
        self.overflowed || self.set.contains(kind)
    }

    pub fn merge(&mut self, other: Kinds) {
        self.overflowed |= other.overflowed;
        if self.overflowed {
            self.set = HashSet::new();
            return;
        }
        for kind in other.set {
            self.insert_owned(kind);
        }
    }

    fn insert(&mut self, kind: &str) {
        // No CRD can define a longer kind (a DNS label); leaving one out is safe.
        if kind.len() > Self::MAX_KIND_LEN {
            return;
        }
        if !self.overflowed && !self.set.contains(kind) {
            self.insert_owned(kind.to_string());
        }
    }

    fn insert_owned(&mut self, kind: String) {
        if self.set.len() >= Self::CAP {
            self.overflowed = true;
            self.set = HashSet::new();
        } else if !self.overflowed {
            self.set.insert(kind);
        }
    }
}

/// Every value of a `kind` key anywhere in `text`, at any depth, in block or flow
/// style, YAML or JSON: `kind: Foo`, `"kind": "Foo"`, `{kind: Foo}`, `- kind: 'Foo'`.
pub fn mentioned(text: &str, out: &mut Kinds) {
    for at in memchr::memmem::find_iter(text.as_bytes(), b"kind") {
        let before = at.checked_sub(1).map(|i| text.as_bytes()[i]);
        if before.is_some_and(is_name_byte) {
            continue;
        }
        if let Some(kind) = value_after_key(text, at + "kind".len()) {
            out.insert(kind);
        }
    }
}

/// The values of `kind:` keys that start a line: the kinds of a CRD file's own block
/// style documents. (Deeper `kind` keys of a CRD file are mostly `spec.names.kind`,
/// which would make every CRD look used.)
pub fn top_level(text: &str, out: &mut Kinds) {
    let bytes = text.as_bytes();
    // Searched with the line break: `kind` alone is in most descriptions of a CRD.
    let line_starts = bytes
        .starts_with(b"kind")
        .then_some(0)
        .into_iter()
        .chain(memchr::memmem::find_iter(bytes, b"\nkind").map(|at| at + 1));
    for at in line_starts {
        if let Some(kind) = value_after_key(text, at + "kind".len()) {
            out.insert(kind);
        }
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'
}

/// The plain value after a key that ended at `from`: an optional closing quote, `:`,
/// blanks, an optional opening quote, then the value up to a delimiter.
fn value_after_key(text: &str, from: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut i = from;
    if matches!(bytes.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if bytes.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if matches!(bytes.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let start = i;
    while bytes.get(i).is_some_and(|b| {
        !matches!(
            b,
            b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'\'' | b',' | b'}' | b']' | b'#'
        )
    }) {
        i += 1;
    }
    // Delimiters are ASCII, so `start..i` lies on char boundaries.
    (i > start).then(|| &text[start..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(kinds: Kinds) -> Vec<String> {
        assert!(!kinds.overflowed);
        let mut v: Vec<String> = kinds.set.into_iter().collect();
        v.sort();
        v
    }

    #[test]
    fn mentioned_finds_kind_keys_in_every_style() {
        let text = "kind: Foo\nspec:\n  - kind: 'Bar'\n  x: {kind: Baz, a: 1}\n\
                    {\"kind\" : \"Qux\"}\nlistKind: NotMe\nsubkind: NotMe2\nkind:\n  Multi\n\
                    kind: Ünï # c\n";
        let mut out = Kinds::default();
        mentioned(text, &mut out);
        assert_eq!(sorted(out), ["Bar", "Baz", "Foo", "Qux", "Ünï"]);
    }

    #[test]
    fn top_level_reads_only_line_starting_keys() {
        let text = "kind: CustomResourceDefinition\nspec:\n  names:\n    kind: Foo\n---\nkind: Foo\n\
                    ---\nkind: \"Bar\"\n";
        let mut out = Kinds::default();
        top_level(text, &mut out);
        assert_eq!(sorted(out), ["Bar", "CustomResourceDefinition", "Foo"]);
        let mut out = Kinds::default();
        top_level("apiVersion: v1\n  kind: Foo\n", &mut out);
        assert!(out.set.is_empty() && !out.may_contain("Foo"));
    }

    proptest::proptest! {
        /// Any text: no panic (values are sliced at ASCII delimiters, so on char
        /// boundaries), and every value found is written in the text after a key.
        #[test]
        fn scans_take_values_from_the_text(
            text in "(kind|\"kind\"|'|\"|:| |\t|\n|-|\\{|,|#|é|😀|Foo|ü|\r)*"
        ) {
            let mut out = Kinds::default();
            mentioned(&text, &mut out);
            top_level(&text, &mut out);
            for kind in &out.set {
                proptest::prop_assert!(!kind.is_empty() && text.contains(kind.as_str()));
            }
        }
    }

    #[test]
    fn too_many_distinct_kinds_give_up_instead_of_growing() {
        let text: String = (0..Kinds::CAP + 1)
            .map(|i| format!("kind: K{i}\n"))
            .collect();
        let mut out = Kinds::default();
        mentioned(&text, &mut out);
        assert!(out.overflowed && out.set.is_empty());
        assert!(out.may_contain("Anything"));
        let mut long = Kinds::default();
        mentioned(&format!("kind: {}\n", "K".repeat(64)), &mut long);
        assert!(long.set.is_empty() && !long.overflowed);
        let mut merged = Kinds::default();
        merged.insert("Foo");
        merged.merge(out);
        assert!(merged.overflowed && merged.set.is_empty());
        // Merging sets that fit only together also gives up.
        let half = |from: usize| {
            let mut k = Kinds::default();
            for i in from..from + Kinds::CAP / 2 + 1 {
                k.insert(&format!("K{i}"));
            }
            k
        };
        let mut a = half(0);
        a.merge(half(Kinds::CAP));
        assert!(a.overflowed && a.may_contain("Other"));
    }
}
