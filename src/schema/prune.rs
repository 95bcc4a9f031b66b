//! What the server does to a custom resource before validating it: pruning of fields
//! the structural schema does not know (recording their paths for strict field
//! validation), removal of non-nullable nulls that have no default, and structural
//! defaulting at every depth.

use std::collections::HashMap;

use crate::diag::budget;
use crate::source::{Mapping, Node, Span, Value};

use super::structural::{Structural, StructuralOrBool};

/// A field pruning removed: its path as the server prints it in `unknown field "…"`,
/// and where its key is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownField {
    pub path: String,
    pub key_span: Span,
}

impl UnknownField {
    /// Every unknown field is built here and charged to the object's findings budget
    /// (`diag::budget`) as the `unknown-field` finding it becomes: its path, and the
    /// message quoting it twice (as message and detail).
    pub fn new(path: String, key_span: Span) -> Self {
        const MESSAGE: usize = "unknown field \"\"".len();
        budget::charge(3 * path.len() + 2 * MESSAGE);
        UnknownField { path, key_span }
    }
}

const META_FIELDS: &[&str] = &["apiVersion", "kind", "metadata"];

fn is_meta(k: &str) -> bool {
    META_FIELDS.contains(&k)
}

/// The schema's map-value schema: `Some(None)` for `additionalProperties: <bool>`
/// (a schema-less value), `None` when there is no `additionalProperties`.
fn additional(s: &Structural) -> Option<Option<&Structural>> {
    match &s.additional_properties {
        Some(StructuralOrBool::Structural(ap)) => Some(Some(ap)),
        Some(StructuralOrBool::Bool(_)) => Some(None),
        None => None,
    }
}

/// Removes unknown fields (`pruning.PruneWithOptions` with `isResourceRoot`), returning
/// them sorted by path. At the root, `apiVersion`, `kind` and `metadata` are kept.
///
/// Each unknown field is a finding to be ([`UnknownField::new`] charges it); once the
/// object's findings budget is spent the rest are pruned without a record (60,000
/// unknown keys 400 levels deep were 48 MB of paths).
pub fn prune(obj: &mut Node, schema: &Structural, is_resource_root: bool) -> Vec<UnknownField> {
    let mut p = Pruner {
        path: String::new(),
        unknown: Vec::new(),
        record: true,
    };
    p.prune(obj, Some(schema), is_resource_root);
    p.unknown.sort_by(|a, b| a.path.cmp(&b.path));
    p.unknown
}

/// [`prune`] for an object whose unknown fields are not reported (an old object, the
/// stored form, `--unknown-fields ignore`): no paths are built.
pub fn prune_unreported(obj: &mut Node, schema: &Structural, is_resource_root: bool) {
    let mut p = Pruner {
        path: String::new(),
        unknown: Vec::new(),
        record: false,
    };
    p.prune(obj, Some(schema), is_resource_root);
}

struct Pruner {
    path: String,
    unknown: Vec<UnknownField>,
    /// Whether unknown fields are recorded (and their paths built at all).
    record: bool,
}

impl Pruner {
    fn push_key(&mut self, key: &str) -> usize {
        let len = self.path.len();
        if !self.record {
            return len;
        }
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(key);
        len
    }

    fn push_index(&mut self, i: usize) -> usize {
        let len = self.path.len();
        if !self.record {
            return len;
        }
        crate::diag::path::push_index(&mut self.path, i);
        len
    }

    fn record(&mut self, key: &str, key_span: Span) {
        if !self.record || budget::exhausted() {
            return;
        }
        let len = self.push_key(key);
        self.unknown
            .push(UnknownField::new(self.path.clone(), key_span));
        self.path.truncate(len);
    }

    /// `embedded` overrides the schema's x-kubernetes-embedded-resource (the root).
    fn prune(&mut self, x: &mut Node, s: Option<&Structural>, embedded: bool) {
        if let Some(s) = s
            && s.extensions.x_preserve_unknown_fields
        {
            self.skip_prune(x, s, embedded);
            return;
        }
        match &mut x.value {
            Value::Object(map) => {
                let Some(s) = s else {
                    for e in &map.entries {
                        self.record(&e.key, e.key_span);
                    }
                    map.entries.clear();
                    return;
                };
                let embedded = embedded || s.extensions.x_embedded_resource;
                let at_root = self.path.is_empty();
                let mut kept = Vec::with_capacity(map.entries.len());
                for mut e in std::mem::take(&mut map.entries) {
                    if embedded && is_meta(&e.key) {
                        kept.push(e);
                        continue;
                    }
                    if let Some(prop) = s.property(&e.key) {
                        let len = self.push_key(&e.key);
                        self.prune(&mut e.value, Some(prop), false);
                        self.path.truncate(len);
                        kept.push(e);
                    } else if let Some(ap) = additional(s) {
                        let len = self.push_key(&e.key);
                        self.prune(&mut e.value, ap, false);
                        self.path.truncate(len);
                        kept.push(e);
                    } else if !is_meta(&e.key) || !at_root {
                        self.record(&e.key, e.key_span);
                    }
                }
                map.entries = kept;
            }
            Value::Array(items) => {
                let item_schema = s.and_then(|s| s.items.as_deref());
                for (i, item) in items.iter_mut().enumerate() {
                    let len = self.push_index(i);
                    self.prune(item, item_schema, false);
                    self.path.truncate(len);
                }
            }
            _ => {}
        }
    }

    fn skip_prune(&mut self, x: &mut Node, s: &Structural, embedded: bool) {
        match &mut x.value {
            Value::Object(map) => {
                let embedded = embedded || s.extensions.x_embedded_resource;
                for e in &mut map.entries {
                    if embedded && is_meta(&e.key) {
                        continue;
                    }
                    if let Some(prop) = s.property(&e.key) {
                        let len = self.push_key(&e.key);
                        self.prune(&mut e.value, Some(prop), false);
                        self.path.truncate(len);
                    } else if let Some(ap) = additional(s) {
                        let len = self.push_key(&e.key);
                        self.prune(&mut e.value, ap, false);
                        self.path.truncate(len);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = s.items.as_deref() {
                    for (i, item) in items.iter_mut().enumerate() {
                        let len = self.push_index(i);
                        self.skip_prune(item, item_schema, false);
                        self.path.truncate(len);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The schema of a map entry: its property, else the additionalProperties schema.
fn field_schema<'a>(s: Option<&'a Structural>, key: &str) -> Option<&'a Structural> {
    let s = s?;
    s.property(key).or_else(|| additional(s).flatten())
}

/// `PruneNonNullableNullsWithoutDefaults`: drops `key: null` where the field's schema
/// is neither nullable nor defaulted (silently, as the server does). Returns how many
/// were dropped.
pub fn prune_nulls(x: &mut Node, s: Option<&Structural>) -> usize {
    prune_nulls_at(x, s, 0)
}

fn prune_nulls_at(x: &mut Node, s: Option<&Structural>, depth: usize) -> usize {
    if depth > MAX_DEPTH {
        return 0;
    }
    let mut removed = 0;
    match &mut x.value {
        Value::Object(map) => {
            let mut kept = Vec::with_capacity(map.entries.len());
            for mut e in std::mem::take(&mut map.entries) {
                let schema = field_schema(s, &e.key);
                let drop = e.value.is_null()
                    && schema
                        .is_some_and(|sc| !sc.generic.nullable && sc.generic.default.is_none());
                if drop {
                    removed += 1;
                } else {
                    removed += prune_nulls_at(&mut e.value, schema, depth + 1);
                    kept.push(e);
                }
            }
            map.entries = kept;
        }
        Value::Array(items) => {
            let schema = s.and_then(|s| s.items.as_deref());
            for item in items.iter_mut() {
                removed += prune_nulls_at(item, schema, depth + 1);
            }
        }
        _ => {}
    }
    removed
}

const MAX_DEPTH: usize = 1000;

/// How many bytes of JSON defaulting may add to one object: crdlint's limit, not the
/// server's. Defaults are copied into every object, list item and map value that lacks
/// them, so a 3 MiB request can ask for terabytes (a 100 KB default on each of a million
/// `{}` items). The server would have to store the result, and etcd refuses requests
/// over 1.5 MiB unless configured otherwise; no object near this limit can be stored.
pub const DEFAULTS_LIMIT: usize = 16 << 20;

/// A value the defaulter added or replaced: its path.
#[derive(Clone, Debug, PartialEq)]
pub struct Defaulted {
    pub path: String,
}

/// What structural defaulting did to an object.
#[derive(Debug, Default)]
pub struct Defaulting {
    pub added: Vec<Defaulted>,
    /// Where the defaults to apply passed [`DEFAULTS_LIMIT`]: the path of the first
    /// default that did not fit. The object is only partly defaulted, and too large
    /// for the server to store.
    pub over_limit: Option<String>,
    /// Bytes of JSON the defaults applied added.
    pub bytes: usize,
}

fn is_non_nullable_null(x: &Node, s: Option<&Structural>) -> bool {
    x.is_null() && s.is_some_and(|s| !s.generic.nullable)
}

/// Structural defaulting (`defaulting.Default`): missing fields with a default get it,
/// non-nullable nulls get their default, recursively (defaults are applied inside
/// defaults too). Defaulted nodes point at the object that received them. Stops when
/// the defaults applied would pass [`DEFAULTS_LIMIT`].
pub fn default(x: &mut Node, s: &Structural) -> Defaulting {
    default_within(x, s, DEFAULTS_LIMIT)
}

/// [`default`] with another limit (bytes of JSON the defaults may add).
pub fn default_within(x: &mut Node, s: &Structural, limit: usize) -> Defaulting {
    let mut d = Defaulter {
        path: String::new(),
        out: Defaulting::default(),
        remaining: limit,
        sizes: HashMap::new(),
    };
    d.default_at(x, Some(s), 0);
    d.out.bytes = limit - d.remaining;
    d.out
}

struct Defaulter {
    path: String,
    out: Defaulting,
    /// Bytes of JSON the defaults may still add.
    remaining: usize,
    /// The JSON size of each default applied so far, by the default's address in the
    /// schema (few distinct defaults are applied many times).
    sizes: HashMap<*const Node, usize>,
}

impl Defaulter {
    /// A copy of the default `def` pointing at `at`, or `None` (and the object marked
    /// over the limit at `path`) when it does not fit the remaining budget.
    fn take(&mut self, def: &Node, at: Span, path: &str) -> Option<Node> {
        let key = def as *const Node;
        let size = *self.sizes.entry(key).or_insert_with(|| json_size(def));
        if size > self.remaining {
            self.out.over_limit = Some(path.to_string());
            return None;
        }
        self.remaining -= size;
        let mut n = def.clone();
        respan(&mut n, at);
        Some(n)
    }

    fn record(&mut self, path: String) {
        self.out.added.push(Defaulted { path });
    }

    fn default_at(&mut self, x: &mut Node, s: Option<&Structural>, depth: usize) {
        let Some(s) = s else {
            return;
        };
        if depth > MAX_DEPTH || self.out.over_limit.is_some() {
            return;
        }
        let span = x.span;
        match &mut x.value {
            Value::Object(map) => {
                let mut keys = KeyPositions::default();
                for (k, prop) in &s.properties {
                    let Some(def) = &prop.generic.default else {
                        continue;
                    };
                    let missing = match keys.find(map, k) {
                        None => true,
                        Some(i) => is_non_nullable_null(&map.entries[i].value, Some(prop)),
                    };
                    if missing {
                        let path = join(&self.path, k);
                        let Some(value) = self.take(def, span, &path) else {
                            return;
                        };
                        self.record(path);
                        set_default(map, &mut keys, k, value, span);
                    }
                }
                let ap = additional(s);
                for e in &mut map.entries {
                    let len = self.path.len();
                    if !self.path.is_empty() {
                        self.path.push('.');
                    }
                    self.path.push_str(&e.key);
                    if let Some(prop) = s.property(&e.key) {
                        self.default_at(&mut e.value, Some(prop), depth + 1);
                    } else if let Some(ap) = ap {
                        if let Some(ap_schema) = ap
                            && is_non_nullable_null(&e.value, Some(ap_schema))
                            && let Some(def) = &ap_schema.generic.default
                        {
                            let path = self.path.clone();
                            let Some(value) = self.take(def, e.key_span, &path) else {
                                return;
                            };
                            e.value = value;
                            self.record(self.path.clone());
                        }
                        self.default_at(&mut e.value, ap, depth + 1);
                    }
                    self.path.truncate(len);
                }
            }
            Value::Array(items) => {
                let item_schema = s.items.as_deref();
                for (i, item) in items.iter_mut().enumerate() {
                    let len = self.path.len();
                    crate::diag::path::push_index(&mut self.path, i);
                    if let Some(is) = item_schema
                        && is_non_nullable_null(item, Some(is))
                        && let Some(def) = &is.generic.default
                    {
                        let path = self.path.clone();
                        let Some(value) = self.take(def, item.span, &path) else {
                            return;
                        };
                        *item = value;
                        self.record(self.path.clone());
                    }
                    self.default_at(item, item_schema, depth + 1);
                    self.path.truncate(len);
                }
            }
            _ => {}
        }
    }
}

/// About how many bytes `n` takes as JSON: quotes, separators and numbers counted,
/// escapes not.
fn json_size(n: &Node) -> usize {
    let mut size = 0usize;
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        size = size.saturating_add(match &n.value {
            Value::Null => 4,
            Value::Bool(b) => 4 + usize::from(!*b),
            Value::Int(i) => i.to_string().len(),
            Value::Float(f) => f.to_string().len(),
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                stack.extend(items);
                1 + items.len().max(1)
            }
            Value::Object(m) => {
                stack.extend(m.entries.iter().map(|e| &e.value));
                1 + m
                    .entries
                    .iter()
                    .map(|e| e.key.len() + 4)
                    .sum::<usize>()
                    .max(1)
            }
        });
    }
    size
}

/// Points a defaulted value (and everything in it) at `at`.
fn respan(n: &mut Node, at: Span) {
    n.span = at;
    match &mut n.value {
        Value::Object(m) => {
            for e in &mut m.entries {
                e.key_span = at;
                respan(&mut e.value, at);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| respan(i, at)),
        _ => {}
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Sets a defaulted field; a new key points at the object receiving it.
fn set_default(
    map: &mut Mapping,
    keys: &mut KeyPositions,
    key: &str,
    value: Node,
    object_span: Span,
) {
    match keys.find(map, key) {
        Some(i) => map.entries[i].value = value,
        None => {
            map.entries.push(crate::source::Entry {
                key: key.to_string(),
                key_span: Span::point(object_span.start),
                value,
            });
            keys.pushed(map);
        }
    }
}

/// The positions of an object's keys while its defaults are set. Scanning the object
/// for each defaulted property was quadratic: 60,000 properties with a default and an
/// empty object (which grows with each) took 6 s.
#[derive(Default)]
struct KeyPositions(Option<HashMap<String, usize>>);

impl KeyPositions {
    /// Objects at most this long are scanned.
    const MIN_LEN: usize = 32;

    fn find(&mut self, map: &Mapping, key: &str) -> Option<usize> {
        if self.0.is_none() && map.entries.len() > Self::MIN_LEN {
            let mut index = HashMap::with_capacity(map.entries.len() * 2);
            for (i, e) in map.entries.iter().enumerate() {
                index.entry(e.key.clone()).or_insert(i);
            }
            self.0 = Some(index);
        }
        match &self.0 {
            Some(index) => index.get(key).copied(),
            None => map.entries.iter().position(|e| e.key == key),
        }
    }

    /// The last entry of `map` was just added.
    fn pushed(&mut self, map: &Mapping) {
        if let (Some(index), Some(e)) = (&mut self.0, map.entries.last()) {
            index.entry(e.key.clone()).or_insert(map.entries.len() - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::FieldPath;
    use crate::model::schema::decode;
    use crate::source::Span;
    use serde_json::json;

    fn structural(schema: serde_json::Value) -> Structural {
        let node = Node::from_json(&schema, Span::default());
        let (props, diags) = decode(&node, &FieldPath::root("schema"));
        assert!(diags.is_empty(), "{diags:?}");
        super::super::structural::from_props(&props).expect("structural")
    }

    fn node(v: serde_json::Value) -> Node {
        Node::from_json(&v, Span::default())
    }

    #[test]
    fn prunes_unknown_fields_and_reports_sorted_paths() {
        let s = structural(json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {
                    "a": {"type": "string"},
                    "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "string"}}}},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {"type": "string"}}}}
                }}
            }
        }));
        let mut obj = node(json!({
            "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"a": "x", "zz": 1, "b": 2, "items": [{"n": "a", "o": 1}],
                     "free": {"anything": {"goes": 1}},
                     "map": {"k": {"v": "1", "w": 2}}},
            "extra": true
        }));
        let unknown = prune(&mut obj, &s, true);
        let paths: Vec<&str> = unknown.iter().map(|u| u.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "extra",
                "spec.b",
                "spec.items[0].o",
                "spec.map.k.w",
                "spec.zz"
            ]
        );
        assert_eq!(
            obj.to_json(),
            json!({
                "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"},
                "spec": {"a": "x", "items": [{"n": "a"}], "free": {"anything": {"goes": 1}},
                         "map": {"k": {"v": "1"}}}
            })
        );
    }

    #[test]
    fn json_size_is_the_length_of_compact_json() {
        for v in [
            json!({"a": "xyz"}),
            json!({"k": [1, -20, 3.5, true, false, null], "o": {}, "l": [], "s": "é"}),
            json!([{"a": {"b": [[]]}}]),
        ] {
            assert_eq!(json_size(&node(v.clone())), v.to_string().len(), "{v}");
        }
    }

    /// Each default counts its JSON size; the first that does not fit stops defaulting
    /// and names its path.
    #[test]
    fn defaulting_stops_at_its_limit() {
        let s = structural(json!({
            "type": "object",
            "properties": {"l": {"type": "array", "items": {
                "type": "object", "default": {"a": "xyz"},
                "properties": {"a": {"type": "string"}}
            }}}
        }));
        let obj = node(json!({"l": [null, null, null]}));
        let mut fits = obj.clone();
        let d = default_within(&mut fits, &s, 33);
        assert_eq!(d.over_limit, None);
        assert_eq!(d.added.len(), 3);
        let mut over = obj.clone();
        let d = default_within(&mut over, &s, 32);
        assert_eq!(d.over_limit.as_deref(), Some("l[2]"));
        assert_eq!(
            over.to_json(),
            json!({"l": [{"a": "xyz"}, {"a": "xyz"}, null]})
        );
    }

    #[test]
    fn defaults_at_every_depth_and_replaces_non_nullable_nulls() {
        let s = structural(json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "default": {}, "properties": {
                    "replicas": {"type": "integer", "default": 1},
                    "cronSpec": {"type": "string", "default": "5 0 * * *"},
                    "n": {"type": "string", "nullable": true, "default": "d"},
                    "list": {"type": "array", "items": {"type": "object", "properties": {"p": {"type": "integer", "default": 80}}}},
                    "map": {"type": "object", "additionalProperties": {"type": "string", "default": "x"}}
                }}
            }
        }));
        let mut obj = node(
            json!({"spec": {"replicas": null, "n": null, "list": [{}, {"p": 1}], "map": {"a": null}}}),
        );
        let mut empty = node(json!({}));
        prune_nulls(&mut obj, Some(&s));
        default(&mut obj, &s);
        default(&mut empty, &s);
        assert_eq!(
            obj.to_json(),
            json!({"spec": {"replicas": 1, "n": null, "list": [{"p": 80}, {"p": 1}], "map": {"a": "x"}, "cronSpec": "5 0 * * *"}})
        );
        assert_eq!(
            empty.to_json(),
            json!({"spec": {"replicas": 1, "cronSpec": "5 0 * * *", "n": "d"}})
        );
    }

    #[test]
    fn drops_nulls_without_default() {
        let s = structural(json!({
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {
                "a": {"type": "string"}, "b": {"type": "string", "nullable": true}
            }}}
        }));
        let mut obj = node(json!({"spec": {"a": null, "b": null}}));
        assert_eq!(prune_nulls(&mut obj, Some(&s)), 1);
        assert_eq!(obj.to_json(), json!({"spec": {"b": null}}));
    }
}
