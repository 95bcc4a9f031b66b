//! Deciding what each document is: a CRD, a custom resource, a built-in object, or
//! something crdlint cannot resolve.

use crate::diag::ObjectRef;
use crate::source::Node;

/// apiVersion and kind of a document, split the way the API server splits them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeMeta {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl TypeMeta {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// Reads apiVersion and kind; `None` when either is missing or not a string.
pub fn type_meta(root: &Node) -> Option<TypeMeta> {
    let api_version = root.get("apiVersion")?.as_str()?;
    let kind = root.get("kind")?.as_str()?;
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    };
    Some(TypeMeta {
        group: group.to_string(),
        version: version.to_string(),
        kind: kind.to_string(),
    })
}

/// Longest apiVersion, kind, name or namespace a diagnostic carries whole: a valid one
/// is shorter (a name at most 253 bytes, a group 253 and a version 63).
const MAX_SHOWN_BYTES: usize = 320;

/// The object a document describes, for diagnostics. Each of its texts is attached to
/// every finding of the object: a longer one (invalid anyway) is cut, with `…` (a
/// 1 MB name on 20,000 findings made 20 GB of JSON).
pub fn object_ref(root: &Node) -> ObjectRef {
    let text = |path: &[&str]| root.get_path(path).and_then(Node::as_str).map(shown);
    ObjectRef {
        api_version: text(&["apiVersion"]),
        kind: text(&["kind"]),
        name: text(&["metadata", "name"]).or_else(|| text(&["metadata", "generateName"])),
        namespace: text(&["metadata", "namespace"]),
    }
}

fn shown(text: &str) -> String {
    if text.len() <= MAX_SHOWN_BYTES {
        return text.to_string();
    }
    let mut end = MAX_SHOWN_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

pub fn is_crd(meta: &TypeMeta) -> bool {
    meta.group == "apiextensions.k8s.io" && meta.kind == "CustomResourceDefinition"
}

/// `kind: List` (any version of the core group, as kubectl accepts) holds its objects
/// under `items`.
pub fn is_list(meta: &TypeMeta) -> bool {
    meta.group.is_empty() && meta.kind == "List"
}

/// API groups served by kube-apiserver itself: their kinds are not custom resources.
const BUILT_IN_GROUPS: &[&str] = &[
    "",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apiregistration.k8s.io",
    "apps",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "events.k8s.io",
    "extensions",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "storagemigration.k8s.io",
];

pub fn is_built_in_group(group: &str) -> bool {
    BUILT_IN_GROUPS.contains(&group)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    fn node(json: serde_json::Value) -> Node {
        Node::from_json(&json, Span::default())
    }

    #[test]
    fn splits_api_version_like_the_server() {
        let meta = type_meta(&node(
            serde_json::json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab"}),
        ))
        .unwrap();
        assert_eq!(
            (
                meta.group.as_str(),
                meta.version.as_str(),
                meta.kind.as_str()
            ),
            ("stable.example.com", "v1", "CronTab")
        );
        let core = type_meta(&node(
            serde_json::json!({"apiVersion": "v1", "kind": "List"}),
        ))
        .unwrap();
        assert!(is_list(&core));
        assert_eq!(core.api_version(), "v1");
        assert!(type_meta(&node(serde_json::json!({"kind": "X"}))).is_none());
    }

    #[test]
    fn object_texts_beyond_any_valid_length_are_cut_on_a_character_boundary() {
        let long = format!("a{}", "é".repeat(400));
        let object = object_ref(&node(serde_json::json!({
            "apiVersion": "v1", "kind": "K", "metadata": {"name": long, "namespace": "n"}
        })));
        let name = object.name.unwrap();
        assert_eq!(name, format!("a{}…", "é".repeat(159)));
        assert_eq!(object.namespace.as_deref(), Some("n"));
        let exact = "b".repeat(MAX_SHOWN_BYTES);
        let object = object_ref(&node(
            serde_json::json!({"metadata": {"name": exact.clone()}}),
        ));
        assert_eq!(object.name, Some(exact));
    }
}
