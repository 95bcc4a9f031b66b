//! CEL types declared from a structural schema, exactly as the API server declares them
//! (apiserver `pkg/cel/common/schemas.go` `SchemaDeclType`, `pkg/cel/types.go`
//! `MaybeAssignTypeName`, `pkg/cel/escaping.go`):
//!
//! - objects with properties become object types whose fields are the escaped property
//!   names (`__dash__`, `__dot__`, `__slash__`, `__underscores__`, `__keyword__`);
//!   properties whose names cannot be escaped, or whose type is unknown, are absent;
//! - `additionalProperties` schemas become `map(string, V)`; arrays `list(E)`;
//! - `x-kubernetes-int-or-string` is `dyn`; a preserve-unknown-fields object exposes
//!   only its declared properties; a node without a type has no CEL type;
//! - formats `byte` → bytes, `date`/`date-time` → timestamp, `duration` → duration;
//! - the resource root and embedded resources get `apiVersion`, `kind` and a
//!   `metadata` with only `name` and `generateName`.
//!
//! The sizes (`max_elements`, `min_serialized_size`) are the server's, for the cost
//! estimator.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use super::checker::TypeProvider;
use super::types::Type;
use crate::schema::structural::{Structural, StructuralOrBool};

/// `celconfig.MaxRequestSizeBytes`.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;
const MIN_STRING_SIZE: i64 = 2;
const MIN_BOOL_SIZE: i64 = 4;
const MIN_NUMBER_SIZE: i64 = 1;
const MIN_DURATION_SIZE_JSON: i64 = 3;
const MAX_DURATION_SIZE_JSON: i64 = 32;
const JSON_DATE_SIZE: i64 = 12;
const MIN_DATETIME_SIZE_JSON: i64 = 21;
const MAX_DATETIME_SIZE_JSON: i64 = 32;

#[derive(Clone, Debug, PartialEq)]
pub enum DeclKind {
    Simple(Type),
    /// Fields by escaped name, in schema order.
    Object(Vec<DeclField>),
    List(Box<DeclType>),
    /// `map(string, V)`.
    Map(Box<DeclType>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeclField {
    /// The escaped (CEL) name. (Escaping is one-to-one, so it also stands for the
    /// property name in the schema.)
    pub name: String,
    pub ty: DeclType,
    pub required: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeclType {
    pub kind: DeclKind,
    pub max_elements: i64,
    pub min_serialized_size: i64,
    /// [`DeclType::fingerprint`], once asked for.
    pub fingerprint: Fingerprint,
    /// An object's fields in name order, for [`DeclType::field`].
    field_index: FieldIndex,
}

/// Below this many fields, [`DeclType::field`] reads them in turn.
const INDEXED_FIELDS_FROM: usize = 16;

/// The positions of an object's fields sorted by name (stable), built on the first
/// lookup in an object of many fields. Every field selection of a rule looks its field
/// up, in the type checker and again in the cost estimator: reading the fields in turn
/// made a rule naming each of 32,000 properties take 1.94 s (8,000: 0.15 s).
///
/// Like [`Fingerprint`], not part of the value: it compares equal, prints as nothing,
/// and a clone starts over.
#[derive(Default)]
struct FieldIndex(OnceLock<Box<[u32]>>);

impl Clone for FieldIndex {
    fn clone(&self) -> Self {
        FieldIndex::default()
    }
}

impl PartialEq for FieldIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for FieldIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("_")
    }
}

/// A 128-bit digest of a declared type's value (kind, fields, sizes), computed on first
/// use and kept: what compiling a rule and estimating its cost depend on besides the
/// rule's text, so equal fingerprints let the same rule on another node (an identical
/// version, the same subschema in another CRD) reuse its compiled program.
///
/// It is not part of the value: it compares equal, prints as nothing, and a clone
/// starts over (so a clone changed afterwards cannot keep a stale digest).
#[derive(Default)]
pub struct Fingerprint(OnceLock<u128>);

impl Clone for Fingerprint {
    fn clone(&self) -> Self {
        Fingerprint::default()
    }
}

impl PartialEq for Fingerprint {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A fast 128-bit hasher for [`DeclType::fingerprint`]: two multiply-rotate lanes
/// over 8-byte words. (SipHash, twice for 128 bits, cost more than the compilations
/// it saved: 55 M instructions on the corpus.) Not meant to resist crafted input: a
/// collision needs two declared types built to collide, and would only make a rule of
/// one of them type-check as if on the other.
#[derive(Default)]
struct Digest128 {
    low: u64,
    high: u64,
}

impl Digest128 {
    const K_LOW: u64 = 0x9e37_79b9_7f4a_7c15;
    const K_HIGH: u64 = 0xc2b2_ae3d_27d4_eb4f;

    fn word(&mut self, w: u64) {
        self.low = (self.low.rotate_left(23) ^ w).wrapping_mul(Self::K_LOW);
        self.high = (self.high.rotate_left(31) ^ w ^ 0x5bd1_e995).wrapping_mul(Self::K_HIGH);
    }

    fn finish128(&self) -> u128 {
        // A final avalanche so that nearby inputs spread over all bits.
        let mix = |mut x: u64| {
            x ^= x >> 33;
            x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
            x ^= x >> 33;
            x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
            x ^ (x >> 33)
        };
        (u128::from(mix(self.high ^ self.low.rotate_left(17))) << 64) | u128::from(mix(self.low))
    }
}

impl Hasher for Digest128 {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.word(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }

    fn write_i64(&mut self, i: i64) {
        self.word(i as u64);
    }

    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }

    fn write_u128(&mut self, i: u128) {
        self.word(i as u64);
        self.word((i >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.finish128() as u64
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("_")
    }
}

impl DeclType {
    pub fn new(kind: DeclKind, max_elements: i64, min_serialized_size: i64) -> Self {
        DeclType {
            kind,
            max_elements,
            min_serialized_size,
            fingerprint: Fingerprint::default(),
            field_index: FieldIndex::default(),
        }
    }

    fn simple(t: Type, min_size: i64) -> Self {
        DeclType::new(DeclKind::Simple(t), 0, min_size)
    }

    /// The digest of this type's value (see [`Fingerprint`]). Each node of a type tree
    /// is digested once: a parent combines its children's digests.
    pub fn fingerprint(&self) -> u128 {
        *self.fingerprint.0.get_or_init(|| {
            let mut digest = Digest128::default();
            self.digest_into(&mut digest);
            digest.finish128()
        })
    }

    fn digest_into(&self, h: &mut impl Hasher) {
        self.max_elements.hash(h);
        self.min_serialized_size.hash(h);
        match &self.kind {
            DeclKind::Simple(t) => {
                0u8.hash(h);
                t.hash(h);
            }
            DeclKind::Object(fields) => {
                1u8.hash(h);
                fields.len().hash(h);
                for f in fields {
                    f.name.hash(h);
                    f.required.hash(h);
                    f.ty.fingerprint().hash(h);
                }
            }
            DeclKind::List(e) => {
                2u8.hash(h);
                e.fingerprint().hash(h);
            }
            DeclKind::Map(e) => {
                3u8.hash(h);
                e.fingerprint().hash(h);
            }
        }
    }

    /// The first field of this name, of an object type.
    pub fn field(&self, escaped: &str) -> Option<&DeclField> {
        let DeclKind::Object(fields) = &self.kind else {
            return None;
        };
        if fields.len() < INDEXED_FIELDS_FROM {
            return fields.iter().find(|f| f.name == escaped);
        }
        let order = self.field_index.0.get_or_init(|| {
            let mut order: Vec<u32> = (0..fields.len() as u32).collect();
            order.sort_by(|&a, &b| fields[a as usize].name.cmp(&fields[b as usize].name));
            order.into()
        });
        let at = order.partition_point(|&i| fields[i as usize].name.as_str() < escaped);
        order
            .get(at)
            .map(|&i| &fields[i as usize])
            .filter(|f| f.name == escaped)
    }

    pub fn elem(&self) -> Option<&DeclType> {
        match &self.kind {
            DeclKind::List(e) | DeclKind::Map(e) => Some(e),
            _ => None,
        }
    }
}

fn zero_if_negative(v: i64) -> i64 {
    v.max(0)
}

fn format_of(s: &Structural) -> &str {
    s.value_validation
        .as_ref()
        .map(|v| v.format.as_str())
        .unwrap_or("")
}

fn max_string_length_per_request(s: &Structural) -> i64 {
    if s.extensions.x_int_or_string {
        return MAX_REQUEST_SIZE_BYTES - 2;
    }
    match format_of(s) {
        "duration" => MAX_DURATION_SIZE_JSON,
        "date" => JSON_DATE_SIZE,
        "date-time" => MAX_DATETIME_SIZE_JSON,
        _ => MAX_REQUEST_SIZE_BYTES - 2,
    }
}

/// The declared type of a schema node (`SchemaDeclType`); `None` when the node has no
/// CEL type.
pub fn schema_decl_type(s: &Structural, is_resource_root: bool) -> Option<DeclType> {
    schema_decl_type_depth(s, is_resource_root, 0)
}

/// [`schema_decl_type`] of a node as it is built inside an ancestor's type, `depth`
/// levels below it: the same type, unless the nesting limit cuts it.
pub(crate) fn schema_decl_type_depth(
    s: &Structural,
    is_resource_root: bool,
    depth: usize,
) -> Option<DeclType> {
    if depth > 1000 {
        return None;
    }
    let vv = s.value_validation.as_deref();
    if s.extensions.x_int_or_string {
        let mut dyn_type = DeclType::simple(Type::Dyn, 1);
        dyn_type.max_elements = match vv.and_then(|v| v.max_length) {
            // Go's int64 arithmetic wraps (a maxLength above 2^61 is legal).
            Some(n) => zero_if_negative(n).wrapping_mul(4),
            None => max_string_length_per_request(s),
        };
        return Some(dyn_type);
    }
    match s.generic.type_.as_ref() {
        "array" => {
            let items = s.items.as_deref()?;
            let item_type =
                schema_decl_type_depth(items, items.extensions.x_embedded_resource, depth + 1)?;
            let max_items = match vv.and_then(|v| v.max_items) {
                Some(n) => zero_if_negative(n),
                None => (MAX_REQUEST_SIZE_BYTES - 2) / (item_type.min_serialized_size + 1),
            };
            Some(DeclType::new(
                DeclKind::List(Box::new(item_type)),
                max_items,
                2,
            ))
        }
        "object" => {
            if let Some(StructuralOrBool::Structural(ap)) = &s.additional_properties {
                let value_type =
                    schema_decl_type_depth(ap, ap.extensions.x_embedded_resource, depth + 1)?;
                let max_props = match vv.and_then(|v| v.max_properties) {
                    Some(n) => zero_if_negative(n),
                    None => (MAX_REQUEST_SIZE_BYTES - 2) / (value_type.min_serialized_size + 6),
                };
                return Some(DeclType::new(
                    DeclKind::Map(Box::new(value_type)),
                    max_props,
                    2,
                ));
            }
            let required: &[String] = vv.map(|v| v.required.as_slice()).unwrap_or(&[]);
            // A long `required` list is looked up through a set: scanning it for each
            // property was quadratic (10,000 required properties 0.18 s, 40,000 1.96 s).
            let required_set: Option<HashSet<&str>> =
                (required.len() > 16).then(|| required.iter().map(String::as_str).collect());
            let is_required = |name: &str| match &required_set {
                Some(set) => set.contains(name),
                None => required.iter().any(|r| r == name),
            };
            let mut fields = Vec::with_capacity(s.properties.len());
            let mut min_size = 2i64;
            let meta_ok = !is_resource_root || has_type_and_object_meta(s);
            for (name, prop) in &s.properties {
                if !meta_ok && matches!(name.as_str(), "kind" | "apiVersion" | "metadata") {
                    continue;
                }
                let Some(ft) =
                    schema_decl_type_depth(prop, prop.extensions.x_embedded_resource, depth + 1)
                else {
                    continue;
                };
                let is_required = is_required(name);
                if is_required && prop.generic.default.is_none() {
                    min_size += name.len() as i64 + ft.min_serialized_size + 4;
                }
                if let Some(escaped) = escape(name) {
                    fields.push(DeclField {
                        name: escaped.into_owned(),
                        ty: ft,
                        required: is_required,
                    });
                }
            }
            if !meta_ok {
                // Plain strings and a name/generateName object (no defaults, minimum
                // size 2), which count like any property when required.
                for name in ["kind", "apiVersion", "metadata"] {
                    if is_required(name) {
                        min_size += name.len() as i64 + 2 + 4;
                    }
                }
                let string = || {
                    DeclType::new(
                        DeclKind::Simple(Type::String),
                        MAX_REQUEST_SIZE_BYTES - 2,
                        MIN_STRING_SIZE,
                    )
                };
                let field = |n: &str, ty: DeclType| DeclField {
                    name: n.to_string(),
                    ty,
                    required: false,
                };
                fields.push(field("kind", string()));
                fields.push(field("apiVersion", string()));
                fields.push(field(
                    "metadata",
                    DeclType::new(
                        DeclKind::Object(vec![
                            field("name", string()),
                            field("generateName", string()),
                        ]),
                        0,
                        2,
                    ),
                ));
            }
            Some(DeclType::new(DeclKind::Object(fields), 0, min_size))
        }
        "string" => {
            let max_length = vv.and_then(|v| v.max_length);
            match format_of(s) {
                "byte" => {
                    let mut t = DeclType::simple(Type::Bytes, MIN_STRING_SIZE);
                    t.max_elements = match max_length {
                        Some(n) => zero_if_negative(n),
                        None => max_string_length_per_request(s),
                    };
                    Some(t)
                }
                "duration" => {
                    let mut t = DeclType::simple(Type::Duration, MIN_DURATION_SIZE_JSON);
                    t.max_elements = max_string_length_per_request(s);
                    Some(t)
                }
                "date" => {
                    let mut t = DeclType::simple(Type::Timestamp, JSON_DATE_SIZE);
                    t.max_elements = max_string_length_per_request(s);
                    Some(t)
                }
                "date-time" => {
                    let mut t = DeclType::simple(Type::Timestamp, MIN_DATETIME_SIZE_JSON);
                    t.max_elements = max_string_length_per_request(s);
                    Some(t)
                }
                _ => {
                    let mut t = DeclType::simple(Type::String, MIN_STRING_SIZE);
                    let enum_ = vv.map(|v| v.enum_.as_slice()).unwrap_or(&[]);
                    t.max_elements = match max_length {
                        // Go's int64 arithmetic wraps (maxLength: 2^63-1 gives -4).
                        Some(n) => zero_if_negative(n).wrapping_mul(4),
                        None if !enum_.is_empty() => enum_
                            .iter()
                            .filter_map(|n| n.as_str())
                            .map(|x| x.len() as i64)
                            .max()
                            .unwrap_or(0),
                        None => max_string_length_per_request(s),
                    };
                    Some(t)
                }
            }
        }
        "boolean" => Some(DeclType::simple(Type::Bool, MIN_BOOL_SIZE)),
        "number" => Some(DeclType::simple(Type::Double, MIN_NUMBER_SIZE)),
        "integer" => Some(DeclType::simple(Type::Int, MIN_NUMBER_SIZE)),
        _ => None,
    }
}

/// Whether a root already declares `kind`, `apiVersion` and `metadata.name` /
/// `metadata.generateName` as strings (then it is used as written).
pub(super) fn has_type_and_object_meta(s: &Structural) -> bool {
    let is = |p: Option<&Structural>, t: &str| p.is_some_and(|p| p.generic.type_ == t);
    let meta = s.property("metadata");
    !s.properties.is_empty()
        && is(s.property("kind"), "string")
        && is(s.property("apiVersion"), "string")
        && is(meta, "object")
        && meta.is_some_and(|m| !m.properties.is_empty())
        && is(meta.and_then(|m| m.property("name")), "string")
        && is(meta.and_then(|m| m.property("generateName")), "string")
}

/// CEL's reserved words, which a property name is escaped from (`__name__`): the
/// literals and `in`, and the identifiers cel-go reserves.
fn is_reserved(ident: &str) -> bool {
    matches!(ident, "true" | "false" | "null" | "in") || super::fastparse::is_reserved(ident)
}

/// The CEL name of a property (`apiserver/pkg/cel.Escape`), or `None` when the property
/// is inaccessible from CEL. Borrowed when nothing needs escaping (most names: this
/// runs for every property of every object a rule sees).
pub fn escape(ident: &str) -> Option<Cow<'_, str>> {
    let first = ident.bytes().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if is_reserved(ident) {
        return Some(Cow::Owned(format!("__{ident}__")));
    }
    let bytes = ident.as_bytes();
    let plain = bytes
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        && !bytes.windows(2).any(|w| w == b"__");
    if plain {
        return Some(Cow::Borrowed(ident));
    }
    // Only ASCII survives escaping, so bytes will do (any other byte means `None`).
    let mut out = String::with_capacity(ident.len() + 8);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'_' if bytes.get(i + 1) == Some(&b'_') => {
                out.push_str("__underscores__");
                i += 2;
                continue;
            }
            b'.' => out.push_str("__dot__"),
            b'-' => out.push_str("__dash__"),
            b'/' => out.push_str("__slash__"),
            b if b.is_ascii_alphanumeric() || b == b'_' => out.push(char::from(b)),
            _ => return None,
        }
        i += 1;
    }
    Some(Cow::Owned(out))
}

/// The property name a CEL field name stands for (`apiserver/pkg/cel.Unescape`), or
/// `None` for an unknown escape. Like Go's `ReplaceAllStringFunc` over
/// `__[^_]+__`, the leftmost sequences that do not overlap are replaced; a keyword
/// (`__if__`) only when it is the whole name. A name without escapes stands for
/// itself (`if` is the property `if`).
pub fn unescape(name: &str) -> Option<Cow<'_, str>> {
    let b = name.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] != b'_' || b[i + 1] != b'_' {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < b.len() && b[j] != b'_' {
            j += 1;
        }
        if j == i + 2 || !name[j..].starts_with("__") {
            i += 1;
            continue;
        }
        let contents = &name[i + 2..j];
        let replacement = match contents {
            "underscores" => "__",
            "dot" => ".",
            "dash" => "-",
            "slash" => "/",
            word if is_reserved(word) && i == 0 && j + 2 == b.len() => word,
            _ => return None,
        };
        let o = out.get_or_insert_with(String::new);
        o.push_str(&name[copied..i]);
        o.push_str(replacement);
        copied = j + 2;
        i = j + 2;
    }
    Some(match out {
        Some(mut o) => {
            o.push_str(&name[copied..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(name),
    })
}

/// The object types reachable from a rule's `self`, named as the server names them
/// (`<root>.field`, `<root>.list.@idx`, `<root>.map.@elem`).
///
/// The server declares every object type of the subtree before compiling; here a type
/// is resolved from its name when the checker asks for it (escaped field names hold no
/// `.`, so a name is a path from the root). A rule only touches the few types it
/// reaches, and rules on nested nodes would otherwise declare the same subtrees again.
#[derive(Clone, Debug)]
pub struct TypeRegistry<'d> {
    root: &'d DeclType,
    root_name: &'d str,
    /// From compatibility version 1.31 a field named by a CEL keyword is also reachable
    /// by its plain name (`self.namespace` for `__namespace__`).
    pub recognize_keywords_as_field_names: bool,
}

impl<'d> TypeRegistry<'d> {
    /// The types of `root`, named `root_name`.
    pub fn new(
        root: &'d DeclType,
        root_name: &'d str,
        recognize_keywords_as_field_names: bool,
    ) -> Self {
        TypeRegistry {
            root,
            root_name,
            recognize_keywords_as_field_names,
        }
    }

    /// The CEL type of the root (`self`).
    pub fn root_type(&self) -> Type {
        type_of(self.root, self.root_name)
    }

    /// The declaration a type name stands for.
    fn resolve(&self, name: &str) -> Option<&'d DeclType> {
        let mut steps = name.split('.');
        if steps.next() != Some(self.root_name) {
            return None;
        }
        let mut at = self.root;
        for step in steps {
            at = match (&at.kind, step) {
                (DeclKind::List(e), "@idx") | (DeclKind::Map(e), "@elem") => e,
                (DeclKind::Object(_), _) => &at.field(step)?.ty,
                _ => return None,
            };
        }
        Some(at)
    }
}

/// The CEL type of `decl` when it is named `name`: object types by name, lists and maps
/// by their element's type.
fn type_of(decl: &DeclType, name: &str) -> Type {
    match &decl.kind {
        DeclKind::Simple(t) => t.clone(),
        DeclKind::List(e) => Type::list(type_of(e, &format!("{name}.@idx"))),
        DeclKind::Map(e) => Type::map(Type::String, type_of(e, &format!("{name}.@elem"))),
        DeclKind::Object(_) => Type::Object(name.to_string()),
    }
}

impl TypeProvider for TypeRegistry<'_> {
    fn has_struct(&self, name: &str) -> bool {
        self.resolve(name)
            .is_some_and(|d| matches!(d.kind, DeclKind::Object(_)))
    }

    fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        let decl = self.resolve(type_name)?;
        if !matches!(decl.kind, DeclKind::Object(_)) {
            return None;
        }
        let find = |name: &str| {
            decl.field(name)
                .map(|f| type_of(&f.ty, &format!("{type_name}.{}", f.name)))
        };
        find(field).or_else(|| {
            (self.recognize_keywords_as_field_names && is_reserved(field))
                .then(|| find(&format!("__{field}__")))
                .flatten()
        })
    }
}

/// The name given to `self`'s type. The server appends the nanoseconds of the clock
/// (`selfType%d`), so its messages differ on every request; crdlint uses 0.
pub const SELF_TYPE_NAME: &str = "selfType0";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_like_the_server() {
        assert_eq!(escape("foo").as_deref(), Some("foo"));
        assert_eq!(escape("x-y").as_deref(), Some("x__dash__y"));
        assert_eq!(escape("a.b/c").as_deref(), Some("a__dot__b__slash__c"));
        assert_eq!(escape("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("1a"), None);
        assert_eq!(escape("a b"), None);
        assert_eq!(escape("a@b"), None);
        assert_eq!(escape("é"), None);
        assert_eq!(escape("aé_"), None);
        assert_eq!(escape("a___b").as_deref(), Some("a__underscores___b"));
        assert_eq!(escape(""), None);
    }
}
