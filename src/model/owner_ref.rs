//! `metav1.OwnerReference`, as CRDs and custom resources both carry it in
//! `metadata.ownerReferences`: strict decoding with spans, Go's JSON form (which the
//! server quotes in errors), and the request handlers' removal of repeated entries.

use crate::model::decode::{At, Decoder};
use crate::source::{Node, Span};

const KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "name",
    "uid",
    "controller",
    "blockOwnerDeletion",
];

#[derive(Clone, Debug, Default)]
pub struct OwnerRef {
    /// The whole entry.
    pub span: Span,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    pub controller: Option<bool>,
    pub block_owner_deletion: Option<bool>,
    /// Where each string field's value is written, when it is.
    pub api_version_span: Option<Span>,
    pub kind_span: Option<Span>,
    pub name_span: Option<Span>,
    pub uid_span: Option<Span>,
}

/// Decodes one entry of `ownerReferences`; type errors and unknown fields go to `dec`.
pub fn decode(dec: &mut Decoder, node: &Node, at: &At) -> OwnerRef {
    let mut r = OwnerRef {
        span: node.span,
        ..OwnerRef::default()
    };
    let Some(entries) = dec.object(node, at, "v1.OwnerReference", KEYS) else {
        return r;
    };
    for e in entries {
        let fat = at.field("OwnerReference", &e.key);
        let (value, span) = match e.key.as_str() {
            "apiVersion" => (&mut r.api_version, &mut r.api_version_span),
            "kind" => (&mut r.kind, &mut r.kind_span),
            "name" => (&mut r.name, &mut r.name_span),
            "uid" => (&mut r.uid, &mut r.uid_span),
            "controller" => {
                r.controller = dec.boolean(&e.value, &fat);
                continue;
            }
            _ => {
                r.block_owner_deletion = dec.boolean(&e.value, &fat);
                continue;
            }
        };
        let go_type = if e.key == "uid" {
            "types.UID"
        } else {
            "string"
        };
        if let Some(text) = dec.string(&e.value, &fat, go_type) {
            *value = text;
            *span = Some(e.value.span);
        }
    }
    r
}

impl OwnerRef {
    /// `json.Marshal` of the Go struct: field order, `omitempty` on the two flags.
    pub fn to_go_json(&self) -> String {
        let q =
            |s: &str| crate::diag::gofmt::json_marshal(&serde_json::Value::String(s.to_string()));
        let mut out = format!(
            "{{\"apiVersion\":{},\"kind\":{},\"name\":{},\"uid\":{}",
            q(&self.api_version),
            q(&self.kind),
            q(&self.name),
            q(&self.uid)
        );
        if let Some(c) = self.controller {
            out.push_str(&format!(",\"controller\":{c}"));
        }
        if let Some(b) = self.block_owner_deletion {
            out.push_str(&format!(",\"blockOwnerDeletion\":{b}"));
        }
        out.push('}');
        out
    }

    /// What `apiequality.Semantic.DeepEqual` compares: every field, with an unset
    /// `controller` or `blockOwnerDeletion` unlike an explicit `false`.
    fn identity(&self) -> (&str, &str, &str, &str, Option<bool>, Option<bool>) {
        (
            &self.api_version,
            &self.kind,
            &self.name,
            &self.uid,
            self.controller,
            self.block_owner_deletion,
        )
    }
}

/// The request handlers' `dedupOwnerReferences`, run on every object (CRDs too) before
/// validation: a reference equal in every field to one kept before it is dropped, so
/// two controller references that are one copy are not refused. Returns the indexes
/// dropped, in order.
pub fn dedup(refs: &mut Vec<OwnerRef>) -> Vec<usize> {
    // Hashed, so that a list of many references stays linear (the server compares a
    // reference with every kept one of its uid).
    let mut seen = std::collections::HashSet::with_capacity(refs.len());
    let dropped: Vec<usize> = refs
        .iter()
        .enumerate()
        .filter(|(_, r)| !seen.insert(r.identity()))
        .map(|(i, _)| i)
        .collect();
    if !dropped.is_empty() {
        let mut index = 0;
        refs.retain(|_| {
            index += 1;
            dropped.binary_search(&(index - 1)).is_err()
        });
    }
    dropped
}
