//! `--old PATH`: the objects as they are stored (for instance the previous revision of
//! the manifests). A custom resource whose API group, kind, namespace and name match
//! an old object is checked as an update of it instead of a create, whatever versions
//! the two are written in; so is a CRD whose `metadata.name` matches an old
//! `apiextensions.k8s.io/v1` CRD.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::diag::Diagnostic;
use crate::source::walk::{self, WalkOptions};
use crate::source::yaml::Limits;
use crate::source::{Node, SourceFile, Value};

/// (API group, kind, namespace, name).
type Key = (String, String, String, String);

#[derive(Default)]
pub struct OldObjects {
    by_key: HashMap<Key, Node>,
    /// `apiextensions.k8s.io/v1` CRDs by `metadata.name`.
    crds: HashMap<String, Node>,
    /// Problems reading or parsing the old files.
    pub diagnostics: Vec<Diagnostic>,
    pub io_error: bool,
    /// `--old` was given at all.
    given: bool,
    /// Some checked object found its old one: without it, `--old` changed nothing, which
    /// the user is told (a typo in a name or namespace otherwise passes unnoticed).
    matched: AtomicBool,
}

fn key(doc: &Node) -> Option<Key> {
    let text = |path: &[&str]| doc.get_path(path).and_then(Node::as_str).unwrap_or("");
    let name = text(&["metadata", "name"]);
    if name.is_empty() {
        return None;
    }
    // The same object whatever version it is written in: the server finds the stored
    // object by group, kind, namespace and name, and converts it.
    let group = match text(&["apiVersion"]).split_once('/') {
        Some((group, _)) => group,
        None => "",
    };
    Some((
        group.to_string(),
        text(&["kind"]).to_string(),
        text(&["metadata", "namespace"]).to_string(),
        name.to_string(),
    ))
}

impl OldObjects {
    /// Reads every document of `paths` (`kind: List` items included); a later
    /// document with the same identity replaces an earlier one.
    pub fn load(
        paths: &[PathBuf],
        walk_options: &WalkOptions,
        max_file_size: u64,
        limits: &Limits,
    ) -> OldObjects {
        let mut out = OldObjects {
            given: !paths.is_empty(),
            ..OldObjects::default()
        };
        if paths.is_empty() {
            return out;
        }
        let (inputs, errors) = walk::collect(paths, walk_options);
        for e in errors {
            out.io_error = true;
            let file = SourceFile::new(e.path.clone(), String::new());
            out.diagnostics
                .push(Diagnostic::error(crate::source::IO_ERROR, e.message).in_file(&file));
        }
        let files: Vec<_> = inputs
            .par_iter()
            .map(|input| super::load::load(input, max_file_size, limits))
            .collect();
        for file in files {
            out.io_error |= file.io_error;
            out.diagnostics.extend(file.diagnostics);
            for parsed in file.documents {
                out.insert(parsed.root);
            }
        }
        out
    }

    fn insert(&mut self, root: Node) {
        let is_list =
            super::classify::type_meta(&root).is_some_and(|m| super::classify::is_list(&m));
        if is_list {
            if let Value::Object(map) = root.value
                && let Some(Node {
                    value: Value::Array(items),
                    ..
                }) = map.get("items").cloned()
            {
                for item in items {
                    self.insert(item);
                }
            }
            return;
        }
        if let Some(k) = key(&root) {
            let api_version = root.get_path(&["apiVersion"]).and_then(Node::as_str);
            if api_version == Some("apiextensions.k8s.io/v1") && k.1 == "CustomResourceDefinition" {
                self.crds.insert(k.3.clone(), root.clone());
            }
            self.by_key.insert(k, root);
        }
    }

    /// The old object `doc` updates, if any.
    pub fn find(&self, doc: &Node) -> Option<&Node> {
        if self.by_key.is_empty() {
            return None;
        }
        self.found(self.by_key.get(&key(doc)?))
    }

    /// The old CRD named `name`, if any.
    pub fn find_crd(&self, name: &str) -> Option<&Node> {
        self.found(self.crds.get(name))
    }

    fn found<'a>(&self, old: Option<&'a Node>) -> Option<&'a Node> {
        if old.is_some() {
            self.matched.store(true, Ordering::Relaxed);
        }
        old
    }

    /// What to tell the user when `--old` was given but no checked object updates an
    /// old one, so that every object was checked as a create.
    pub fn unused_note(&self) -> Option<String> {
        // (An old path that could not be read is an error of its own.)
        if !self.given || self.io_error || self.matched.load(Ordering::Relaxed) {
            return None;
        }
        Some(match self.by_key.len() {
            0 => "note: --old: the old files hold no object with a name; every object was checked as a create".to_string(),
            n => format!(
                "note: --old: no checked object has the API group, kind, namespace and name of {}; every object was checked as a create",
                if n == 1 { "the old object".to_string() } else { format!("any of the {n} old objects") }
            ),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}
