//! Runtime values of crdlint's CEL interpreter, and the conversion of a custom
//! resource's values into them, typed by the schema as the server types them
//! (apiserver `pkg/cel/common/values.go`): integers stay `int`, numbers are `double`,
//! `date`/`date-time` strings are timestamps, `duration` strings durations, `byte`
//! strings bytes, objects expose their escaped property names.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::Arc;

use super::library::formats::NamedFormat;
use super::library::net::{Addr, Prefix};
use super::library::quantity::Quantity;
use super::library::semver::Version;
use super::library::url::Url;
use super::lookup::{Positions, bucket, key_bucket};
use super::schema_types::{escape, unescape};
use crate::schema::structural::{Structural, StructuralOrBool};
use crate::source::{Node, Value as NodeValue};

#[derive(Clone, Debug)]
pub enum Val {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
    /// A list CEL builds (a literal, a macro's or a function's result).
    List(Arc<Vec<Val>>),
    /// A list CEL builds by joining lists with `+` when one of them was read from the
    /// object (cel-go's `concatList`): its elements, and the joined lists, whose own
    /// `in` each answers in turn.
    Joined(Arc<Vec<Val>>, Arc<Vec<Val>>),
    /// An atomic list read from the object (apiserver `unstructuredList`), with what
    /// its item schema reads: unlike a list CEL builds, it answers "no such overload"
    /// when compared with a value that is not a list, is never a zero value, and `+`
    /// appends the right operand's elements as data to read with the item schema.
    DataList(Arc<Vec<Val>>, DataKind),
    /// A list with `x-kubernetes-list-type: set`: equality as sets and `+` as union
    /// when it is the left operand (apiserver `unstructuredSetList`).
    SetList(Arc<Vec<Val>>, DataKind),
    /// A list with `x-kubernetes-list-type: map` and its (escaped) key properties:
    /// equality by key and `+` merging by key when it is the left operand.
    MapList(Arc<Vec<Val>>, Arc<[String]>),
    /// Maps CEL builds: entries in insertion order with unique keys.
    Map(Arc<Vec<(Val, Val)>>),
    /// Maps and objects read from the object (apiserver `unstructuredMap`): as for
    /// [`Val::DataList`], "no such overload" against a value that is not a map, and
    /// never a zero value. Objects hold their properties by escaped name.
    DataMap(Arc<Vec<(Val, Val)>>, Keys),
    /// Seconds and nanoseconds since the Unix epoch (UTC).
    /// Unix seconds, nanoseconds, and the UTC offset (seconds) it prints with.
    Timestamp(i64, u32, i32),
    /// Nanoseconds.
    Duration(i64),
    Optional(Option<Box<Val>>),
    Type(String),
    Quantity(Arc<Quantity>),
    Url(Arc<Url>),
    Ip(Arc<Addr>),
    Cidr(Arc<Prefix>),
    Semver(Arc<Version>),
    Format(&'static NamedFormat),
    /// A value the server could not convert (e.g. a `date-time` string that does not
    /// parse): using it is an error with this text.
    Error(Arc<str>),
}

/// How a map read from the object finds a key (apiserver `unstructuredMap.Find`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keys {
    /// A map (`additionalProperties`): the key as given.
    AsGiven,
    /// An object with properties: the key is unescaped first (`Unescape`), so
    /// `self.o.if` and `self.o.__if__` both find the property `if`, and a key with an
    /// unknown escape (`__x__`) finds nothing.
    Escaped,
}

impl Keys {
    /// The entry of `entries` (a map read with these keys) that `key` finds.
    pub(crate) fn find<'a>(
        self,
        entries: &'a Arc<Vec<(Val, Val)>>,
        key: &str,
    ) -> Option<&'a (Val, Val)> {
        let keys = super::lookup::keys_of(entries);
        let find = |stored: &str| keys.find_string(stored);
        match self {
            Keys::AsGiven => find(key),
            Keys::Escaped => {
                // Both borrow for a plain name: no allocation on a field selection.
                let raw = unescape(key)?;
                // Entries hold a property by its escaped name, or by its own when it
                // has none (no selection reaches it, but an index does).
                match escape(&raw) {
                    Some(name) => find(&name),
                    None => find(&raw),
                }
            }
        }
    }
}

impl Val {
    pub fn str(s: &str) -> Val {
        Val::String(Arc::from(s))
    }

    pub fn list(items: Vec<Val>) -> Val {
        Val::List(Arc::new(items))
    }

    /// The elements of any kind of list.
    pub fn list_items(&self) -> Option<&[Val]> {
        match self {
            Val::List(l)
            | Val::Joined(l, _)
            | Val::DataList(l, _)
            | Val::SetList(l, _)
            | Val::MapList(l, _) => Some(l),
            _ => None,
        }
    }

    /// The entries of a map or object, whether CEL built it or it was read.
    pub fn map_entries(&self) -> Option<&[(Val, Val)]> {
        match self {
            Val::Map(m) | Val::DataMap(m, _) => Some(m),
            _ => None,
        }
    }

    /// Whether this is a list or map read from the object (the server's unstructured
    /// values), which answers "no such overload" when compared with another kind.
    pub fn is_data_aggregate(&self) -> bool {
        matches!(
            self,
            Val::DataList(..) | Val::SetList(..) | Val::MapList(..) | Val::DataMap(..)
        )
    }

    /// Whether [`Val::plain`] changes this value.
    pub fn has_plain_form(&self) -> bool {
        self.is_data_aggregate() || matches!(self, Val::Joined(..))
    }

    /// The same value with the semantics of data read from the object dropped (for
    /// functions that only read the elements).
    pub fn plain(self) -> Val {
        match self {
            Val::Joined(l, _) | Val::DataList(l, _) | Val::SetList(l, _) | Val::MapList(l, _) => {
                Val::List(l)
            }
            Val::DataMap(m, _) => Val::Map(m),
            other => other,
        }
    }

    pub fn type_name(&self) -> String {
        match self {
            Val::Null => "null_type".into(),
            Val::Bool(_) => "bool".into(),
            Val::Int(_) => "int".into(),
            Val::Uint(_) => "uint".into(),
            Val::Double(_) => "double".into(),
            Val::String(_) => "string".into(),
            Val::Bytes(_) => "bytes".into(),
            Val::List(_)
            | Val::Joined(..)
            | Val::DataList(..)
            | Val::SetList(..)
            | Val::MapList(..) => "list".into(),
            Val::Map(_) | Val::DataMap(..) => "map".into(),
            Val::Timestamp(..) => "google.protobuf.Timestamp".into(),
            Val::Duration(_) => "google.protobuf.Duration".into(),
            Val::Optional(_) => "optional_type".into(),
            Val::Type(_) => "type".into(),
            Val::Quantity(_) => "kubernetes.Quantity".into(),
            Val::Url(_) => "kubernetes.URL".into(),
            Val::Ip(_) => "net.IP".into(),
            Val::Cidr(_) => "net.CIDR".into(),
            Val::Semver(_) => "kubernetes.Semver".into(),
            Val::Format(_) => "kubernetes.NamedFormat".into(),
            Val::Error(_) => "error".into(),
        }
    }

    /// CEL equality with `self` as the receiver (cel-go dispatches `==` on the left
    /// operand, which matters for set and map lists).
    pub fn equals(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Null, Val::Null) => true,
            (Val::Bool(a), Val::Bool(b)) => a == b,
            (Val::String(a), Val::String(b)) => a == b,
            (Val::Bytes(a), Val::Bytes(b)) => a == b,
            (Val::Timestamp(a, b, _), Val::Timestamp(c, d, _)) => a == c && b == d,
            (Val::Duration(a), Val::Duration(b)) => a == b,
            (Val::Type(a), Val::Type(b)) => a == b,
            (Val::Quantity(a), Val::Quantity(b)) => a.compare(b) == Ordering::Equal,
            (Val::Url(a), Val::Url(b)) => a.to_string() == b.to_string(),
            (Val::Ip(a), Val::Ip(b)) => a == b,
            (Val::Cidr(a), Val::Cidr(b)) => a == b,
            (Val::Semver(a), Val::Semver(b)) => a.compare(b) == Ordering::Equal,
            (Val::Format(a), Val::Format(b)) => a.name == b.name,
            (Val::Optional(a), Val::Optional(b)) => match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) => a.equals(b),
                _ => false,
            },
            (Val::SetList(a, kind), b) if b.list_items().is_some() => {
                let b = b.list_items().unwrap_or(&[]);
                if a.len() != b.len() {
                    return false;
                }
                super::work::compared(a.len());
                let members = Positions::of_values(a);
                b.iter().all(|x| {
                    members
                        .first(bucket(x), |i| set_member_eq(&a[i], x, *kind))
                        .is_some()
                })
            }
            (Val::MapList(a, keys), b) if b.list_items().is_some() => {
                let b = b.list_items().unwrap_or(&[]);
                if a.len() != b.len() {
                    return false;
                }
                super::work::compared(a.len());
                let by_key = map_list_positions(a, keys);
                b.iter().all(|x| {
                    let Some(k) = map_list_key(x, keys) else {
                        return false;
                    };
                    // The last element with a key wins, as in the server's index.
                    by_key
                        .last(key_bucket(&k), |i| {
                            map_list_key(&a[i], keys).is_some_and(|k2| keys_eq(&k, &k2))
                        })
                        .is_some_and(|i| a[i].equals(x))
                })
            }
            (Val::DataList(a, _), b) if b.list_items().is_some() => {
                let b = b.list_items().unwrap_or(&[]);
                super::work::compared(a.len().min(b.len()));
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.equals(y))
            }
            // cel-go's own lists count an element comparison that fails as equal.
            (Val::List(a) | Val::Joined(a, _), b) if b.list_items().is_some() => {
                let b = b.list_items().unwrap_or(&[]);
                super::work::compared(a.len().min(b.len()));
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| x.equals(y) || super::interp::element_equality_fails(x, y))
            }
            // The server's object `Equal`: sizes count every key; declared fields
            // compare by value (a null-valued one as absent); a field the schema does
            // not know compares by Go's `DeepEqual`, and only when the other object
            // has it too.
            (Val::Map(a) | Val::DataMap(a, _), Val::Map(b) | Val::DataMap(b, _)) => {
                if a.len() != b.len() {
                    return false;
                }
                super::work::compared(a.len());
                let b = super::lookup::keys_of(b);
                a.iter().all(|(k, v)| match object_key(k) {
                    ObjectKey::Unknown => b
                        .find(bucket(k), |k2| k.equals(k2))
                        .is_none_or(|(_, w)| v.deep_equal(w)),
                    ObjectKey::NullField(name) => b.find_string(name).is_none(),
                    ObjectKey::Plain => b
                        .find(bucket(k), |k2| k.equals(k2))
                        .is_some_and(|(_, w)| v.equals(w)),
                })
            }
            _ => matches!(self.numeric_cmp(other), Some(Ordering::Equal)),
        }
    }

    /// Go's `reflect.DeepEqual` on the data (untyped values, as converted for fields
    /// the schema does not know): same JSON kind and value, no numeric conversion.
    pub(crate) fn deep_equal(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Null, Val::Null) => true,
            (Val::Bool(a), Val::Bool(b)) => a == b,
            (Val::Int(a), Val::Int(b)) => a == b,
            (Val::Double(a), Val::Double(b)) => a == b,
            (Val::String(a), Val::String(b)) => a == b,
            (Val::List(a), Val::List(b)) => {
                super::work::compared(a.len().min(b.len()));
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.deep_equal(y))
            }
            // Preserved unknown data is converted without a schema: plain lists and
            // maps only.
            (Val::Map(a), Val::Map(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                super::work::compared(a.len());
                let b = super::lookup::keys_of(b);
                a.iter().all(|(k, v)| {
                    b.find(bucket(k), |k2| k.deep_equal(k2))
                        .is_some_and(|(_, w)| v.deep_equal(w))
                })
            }
            _ => false,
        }
    }

    /// Go `==` on the native values (how the server's set lists test membership).
    pub(crate) fn native_eq(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Int(a), Val::Int(b)) => a == b,
            (Val::Uint(a), Val::Uint(b)) => a == b,
            (Val::Double(a), Val::Double(b)) => a == b,
            (Val::Int(_) | Val::Uint(_) | Val::Double(_), _)
            | (_, Val::Int(_) | Val::Uint(_) | Val::Double(_)) => false,
            _ => self.equals(other),
        }
    }

    /// `+` with `self` on the left. A list read from the object appends the right
    /// operand's elements as data to be read with its item schema ([`reread`]).
    pub fn concat(&self, other: &Val) -> Option<Val> {
        let b = other.list_items()?;
        // cel-go's concatenated list shares its operands; this one copies them.
        super::work::charge(self.list_items().map_or(0, <[Val]>::len) + b.len());
        Some(match self {
            Val::SetList(a, kind) => {
                let mut out = (**a).clone();
                // The server's set holds the raw data, then the Go values it adds.
                let raw = Positions::of_values(a);
                let mut added: Vec<&Val> = Vec::new();
                let mut added_positions = Positions::default();
                for x in b {
                    let found = raw
                        .first(bucket(x), |i| set_member_eq(&a[i], x, *kind))
                        .is_some()
                        || added_positions
                            .first(bucket(x), |i| added[i].native_eq(x))
                            .is_some();
                    if !found {
                        added.push(x);
                        added_positions.push(bucket(x));
                        out.push(reread(x, *kind));
                    }
                }
                Val::SetList(Arc::new(out), *kind)
            }
            Val::MapList(a, keys) => {
                let mut out = (**a).clone();
                let mut by_key = map_list_positions(a, keys);
                for x in b {
                    let x = reread(x, DataKind::Object);
                    let k = map_list_key(&x, keys);
                    let pos = k.as_ref().and_then(|k| {
                        by_key.last(key_bucket(k), |i| {
                            map_list_key(&out[i], keys).is_some_and(|k2| keys_eq(k, &k2))
                        })
                    });
                    match pos {
                        // Same key, same bucket: the positions stand.
                        Some(i) => out[i] = x,
                        None => {
                            by_key.push(k.as_deref().and_then(key_bucket));
                            out.push(x);
                        }
                    }
                }
                Val::MapList(Arc::new(out), keys.clone())
            }
            Val::DataList(a, kind) => {
                let mut out = (**a).clone();
                out.extend(b.iter().map(|x| reread(x, *kind)));
                Val::DataList(Arc::new(out), *kind)
            }
            // cel-go's lists answer the other operand itself when one side is empty
            // (a list read from the object stays one).
            Val::List(a) | Val::Joined(a, _) if a.is_empty() => other.clone(),
            Val::List(_) | Val::Joined(..) if b.is_empty() => self.clone(),
            Val::List(a) | Val::Joined(a, _) => {
                let mut out = (**a).clone();
                out.extend(b.iter().cloned());
                let parts_of = |v: &Val| match v {
                    Val::Joined(_, parts) => (**parts).clone(),
                    other => vec![other.clone()],
                };
                let mut parts = parts_of(self);
                parts.extend(parts_of(other));
                if parts.iter().any(Val::is_data_aggregate) {
                    Val::Joined(Arc::new(out), Arc::new(parts))
                } else {
                    Val::List(Arc::new(out))
                }
            }
            _ => return None,
        })
    }

    /// Ordering across int, uint and double.
    pub fn numeric_cmp(&self, other: &Val) -> Option<Ordering> {
        use Val::*;
        match (self, other) {
            (Int(a), Int(b)) => Some(a.cmp(b)),
            (Uint(a), Uint(b)) => Some(a.cmp(b)),
            (Double(a), Double(b)) => a.partial_cmp(b),
            (Int(a), Uint(b)) => Some(if *a < 0 {
                Ordering::Less
            } else {
                (*a as u64).cmp(b)
            }),
            (Uint(a), Int(b)) => Some(if *b < 0 {
                Ordering::Greater
            } else {
                a.cmp(&(*b as u64))
            }),
            (Int(a), Double(b)) => cmp_double_int(*b, *a).map(Ordering::reverse),
            (Double(a), Int(b)) => cmp_double_int(*a, *b),
            (Uint(a), Double(b)) => cmp_double_uint(*b, *a).map(Ordering::reverse),
            (Double(a), Uint(b)) => cmp_double_uint(*a, *b),
            _ => None,
        }
    }

    /// Ordering for `<` and the list library (same-kind values, numerics across kinds).
    pub fn compare(&self, other: &Val) -> Option<Ordering> {
        match (self, other) {
            (Val::Bool(a), Val::Bool(b)) => Some(a.cmp(b)),
            (Val::String(a), Val::String(b)) => Some(a.cmp(b)),
            (Val::Bytes(a), Val::Bytes(b)) => Some(a.cmp(b)),
            (Val::Timestamp(a, b, _), Val::Timestamp(c, d, _)) => Some((a, b).cmp(&(c, d))),
            (Val::Duration(a), Val::Duration(b)) => Some(a.cmp(b)),
            _ => self.numeric_cmp(other),
        }
    }
}

/// A double against an int as cel-go compares them (`compareDoubleInt`): outside the
/// int64 range by sign, else against the int converted to a double, so the comparison
/// is lossy above 2^53 (`dyn(9223372036854775807) < 9223372036854775808.0` is false).
/// `None` for NaN (no ordering; never equal).
fn cmp_double_int(d: f64, i: i64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < i64::MIN as f64 {
        return Some(Ordering::Less);
    }
    if d > i64::MAX as f64 {
        return Some(Ordering::Greater);
    }
    d.partial_cmp(&(i as f64))
}

/// A double against a uint as cel-go compares them (`compareDoubleUint`).
fn cmp_double_uint(d: f64, u: u64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < 0.0 {
        return Some(Ordering::Less);
    }
    if d > u64::MAX as f64 {
        return Some(Ordering::Greater);
    }
    d.partial_cmp(&(u as f64))
}

/// The key of a list-map element: the values of its key properties (`None` for an
/// absent one), or `None` when the element is not an object.
pub(crate) fn map_list_key(v: &Val, keys: &[String]) -> Option<Vec<Option<Val>>> {
    let m = v.map_entries()?;
    Some(
        keys.iter()
            .map(|k| {
                m.iter()
                    .find(|(mk, _)| matches!(mk, Val::String(s) if **s == **k))
                    .map(|(_, v)| v.clone())
            })
            .collect(),
    )
}

/// Positions of a map list's elements by the bucket of their key (an element
/// without a key has none).
pub(crate) fn map_list_positions(items: &[Val], keys: &[String]) -> Positions {
    Positions::new(
        items
            .iter()
            .map(|v| map_list_key(v, keys).as_deref().and_then(key_bucket)),
    )
}

pub(crate) fn keys_eq(a: &[Option<Val>], b: &[Option<Val>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => x.native_eq(y),
            _ => false,
        })
}

/// Converts the value at a resource root (the custom resource itself, or an embedded
/// resource): `apiVersion`, `kind` and `metadata.name`/`metadata.generateName` are
/// visible whatever the schema says (apiextensions `WithTypeAndObjectMeta`).
pub fn from_resource_node(node: &Node, schema: &Structural) -> Val {
    convert(node, Some(schema), true, 0)
}

/// Converts a manifest value typed by its structural schema (`None`: untyped, as
/// under preserve-unknown-fields), as apiserver's `UnstructuredToVal` does.
pub fn from_node(node: &Node, schema: Option<&Structural>, depth: usize) -> Val {
    convert(node, schema, false, depth)
}

fn type_and_object_meta(map: &crate::source::Mapping, depth: usize) -> Vec<(Val, Val)> {
    let mut out = Vec::new();
    for (k, v) in map.iter() {
        match k {
            "apiVersion" | "kind" => {
                if let NodeValue::String(s) = &v.value {
                    out.push((Val::str(k), Val::str(s)));
                } else if !v.is_null() {
                    out.push((Val::str(k), convert(v, None, false, depth + 1)));
                }
            }
            "metadata" => {
                let Some(m) = v.as_object() else {
                    continue;
                };
                // `name` and `generateName` are the only declared fields; the rest
                // (namespace, labels…) is data the map holds unknown.
                let mut meta = Vec::new();
                for (mk, mv) in m.iter() {
                    if !matches!(mk, "name" | "generateName") {
                        meta.push(unknown_entry(mk, mv, depth + 1));
                    } else if mv.is_null() {
                        meta.push((null_property_key(mk), Val::Null));
                    } else {
                        meta.push((Val::str(mk), convert(mv, None, false, depth + 2)));
                    }
                }
                out.push((
                    Val::str("metadata"),
                    Val::DataMap(Arc::new(meta), Keys::Escaped),
                ));
            }
            _ => {}
        }
    }
    out
}

fn convert(node: &Node, schema: Option<&Structural>, resource_root: bool, depth: usize) -> Val {
    if depth > 1000 {
        return Val::Null;
    }
    let format = schema
        .and_then(|s| s.value_validation.as_deref())
        .map(|v| v.format.as_str())
        .unwrap_or("");
    let int_or_string = schema.is_some_and(|s| s.extensions.x_int_or_string);
    let type_ = schema.map(|s| s.generic.type_.as_ref()).unwrap_or("");
    if let Some(e) = type_mismatch(&node.value, type_, int_or_string) {
        return Val::Error(Arc::from(e));
    }
    match &node.value {
        // `UnstructuredToVal`: a null is a value only where the schema is nullable.
        // (Null properties never get here: the decoder prunes them or they read as
        // absent; null list items and map values do, e.g. in a ratcheted update.)
        NodeValue::Null if schema.is_some_and(|s| !s.generic.nullable) => Val::Error(Arc::from(
            "invalid data, got null for schema with nullable=false",
        )),
        NodeValue::Null => Val::Null,
        NodeValue::Bool(b) => Val::Bool(*b),
        NodeValue::Int(i) => {
            if type_ == "number" {
                Val::Double(*i as f64)
            } else {
                Val::Int(*i)
            }
        }
        NodeValue::Float(f) => Val::Double(*f),
        NodeValue::String(s) if !int_or_string && type_ == "string" => read_string(s, format),
        NodeValue::String(s) => Val::str(s),
        NodeValue::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            let items: Vec<Val> = items
                .iter()
                .map(|i| convert(i, item_schema, false, depth + 1))
                .collect();
            let items = Arc::new(items);
            let kind = DataKind::of(item_schema);
            if DataKind::of(schema) == DataKind::Untyped {
                // Preserved unknown data (`unknownPreserved`): only compared, by
                // `DeepEqual`, never "no such overload".
                return Val::List(items);
            }
            match schema.and_then(|s| s.extensions.x_list_type.as_deref()) {
                Some("set") => Val::SetList(items, kind),
                Some("map") => {
                    let keys: Vec<String> = schema
                        .map(|s| s.extensions.x_list_map_keys.as_slice())
                        .unwrap_or(&[])
                        .iter()
                        .map(|k| escape(k).map_or_else(|| k.clone(), Cow::into_owned))
                        .collect();
                    Val::MapList(items, Arc::from(keys))
                }
                None | Some("atomic") => Val::DataList(items, kind),
                // Only a CRD the server refuses has another one; its defaults are still
                // checked against the rules, and such a list is an error value.
                Some(other) => Val::Error(Arc::from(format!(
                    "invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got {other}"
                ))),
            }
        }
        NodeValue::Object(map) => {
            // A resource's `apiVersion`, `kind` and `metadata` (`name` and
            // `generateName` only) are always there, unless its schema declares them
            // itself (`WithTypeAndObjectMeta` keeps such a schema as written, e.g.
            // with `metadata.namespace`).
            let resource = (resource_root
                || schema.is_some_and(|s| s.extensions.x_embedded_resource))
                && !schema.is_some_and(super::schema_types::has_type_and_object_meta);
            let mut entries = Vec::with_capacity(map.len());
            if resource {
                entries = type_and_object_meta(map, depth);
            }
            for (k, v) in map.iter() {
                if resource && matches!(k, "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                match schema {
                    Some(s) if !s.properties.is_empty() || resource => match s.property(k) {
                        // Objects: declared properties by their escaped names (an
                        // unescapable one keeps its own, which no selection reaches).
                        Some(prop) => {
                            let name = escape(k).unwrap_or(Cow::Borrowed(k));
                            if v.is_null() {
                                entries.push((null_property_key(&name), Val::Null));
                            } else {
                                entries.push((
                                    Val::str(&name),
                                    convert(v, Some(prop), false, depth + 1),
                                ));
                            }
                        }
                        None => entries.push(unknown_entry(k, v, depth)),
                    },
                    Some(s) => match &s.additional_properties {
                        Some(StructuralOrBool::Structural(ap)) => {
                            entries.push((Val::str(k), convert(v, Some(ap), false, depth + 1)));
                        }
                        // No properties and no value schema (preserve-unknown-fields,
                        // `additionalProperties: true`): the server's map knows no key.
                        _ => entries.push(unknown_entry(k, v, depth)),
                    },
                    None => entries.push((Val::str(k), convert(v, None, false, depth + 1))),
                }
            }
            if resource || DataKind::of(schema) != DataKind::Untyped {
                let keys = if resource || schema.is_some_and(|s| !s.properties.is_empty()) {
                    Keys::Escaped
                } else {
                    Keys::AsGiven
                };
                Val::DataMap(Arc::new(entries), keys)
            } else {
                // Preserved unknown data (`unknownPreserved`): only compared, by
                // `DeepEqual`, never "no such overload".
                Val::Map(Arc::new(entries))
            }
        }
    }
}

/// A string read with its schema's `format`: the formats CEL gives a type of their
/// own become that type, or an error value when the string does not parse.
fn read_string(s: &str, format: &str) -> Val {
    match format {
        "date" => match super::gotime::parse_go_date(s) {
            Ok(ts) => Val::Timestamp(ts.seconds, ts.nanos, 0),
            Err(e) => Val::Error(Arc::from(format!("Invalid date formatted string {s}: {e}"))),
        },
        "date-time" => {
            if s.is_empty() {
                // strfmt's zero DateTime.
                return Val::Timestamp(super::gotime::MIN_UNIX_SECONDS, 0, 0);
            }
            // strfmt tries RFC 3339 layouts, then the zone-less local layout,
            // and reports that last layout's error.
            let parsed =
                super::gotime::parse_rfc3339(s).or_else(|_| super::gotime::parse_iso8601_local(s));
            match parsed {
                Ok(ts) => Val::Timestamp(ts.seconds, ts.nanos, ts.offset),
                Err(e) => Val::Error(Arc::from(format!(
                    "Invalid date-time formatted string {s}: {e}"
                ))),
            }
        }
        "duration" => match super::gotime::parse_duration(s) {
            Ok(n) => Val::Duration(n),
            Err(_) => match strfmt_duration(s) {
                Some(n) => Val::Duration(n),
                None => Val::Error(Arc::from(format!(
                    "Invalid duration {s}: unable to parse {s} as duration"
                ))),
            },
        },
        "byte" => match crate::model::decode::base64_decode(s.as_bytes()) {
            Ok(b) => Val::Bytes(Arc::from(b)),
            Err(at) => Val::Error(Arc::from(format!(
                "Invalid byte formatted string {s}: illegal base64 data at input byte {at}"
            ))),
        },
        _ => Val::str(s),
    }
}

/// What a list's item schema reads its data as (the part of `UnstructuredToVal` that
/// `+` needs to read appended elements again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    Object,
    Array,
    IntOrString,
    Number,
    Integer,
    Boolean,
    /// A string and its `format` (`""` unless CEL gives the format a type).
    String(&'static str),
    /// No type (preserved unknown data): not read by CEL.
    Untyped,
}

impl DataKind {
    pub(crate) fn of(schema: Option<&Structural>) -> DataKind {
        let Some(schema) = schema else {
            return DataKind::Untyped;
        };
        if schema.extensions.x_int_or_string {
            return DataKind::IntOrString;
        }
        match schema.generic.type_.as_ref() {
            "object" => DataKind::Object,
            "array" => DataKind::Array,
            "number" => DataKind::Number,
            "integer" => DataKind::Integer,
            "boolean" => DataKind::Boolean,
            "string" => {
                let format = schema
                    .value_validation
                    .as_deref()
                    .map(|v| v.format.as_str())
                    .unwrap_or("");
                DataKind::String(match format {
                    "date" => "date",
                    "date-time" => "date-time",
                    "duration" => "duration",
                    "byte" => "byte",
                    _ => "",
                })
            }
            _ => DataKind::Untyped,
        }
    }
}

/// Whether the server's set list finds value `x` among its raw elements, here `y`
/// as read with the item schema (`kind`): it looks the Go value of `x` up by Go's
/// `==`, so a timestamp, duration or bytes value (its raw element is a string),
/// `null` (`structpb.NullValue`, where the raw element is `nil`) and a whole number
/// of a `number` list (its raw element is an `int64`, the value a `float64`) are
/// never found.
pub(crate) fn set_member_eq(y: &Val, x: &Val, kind: DataKind) -> bool {
    let raw_string_read_as_other = matches!(
        kind,
        DataKind::String("date" | "date-time" | "duration" | "byte")
    );
    let raw_int_read_as_double =
        kind == DataKind::Number && matches!(y, Val::Double(d) if decodes_as_int(*d));
    !raw_string_read_as_other
        && !raw_int_read_as_double
        && !matches!(x, Val::Null)
        && y.native_eq(x)
}

/// Whether the API server holds a number of the object as an `int64`: kubectl sends
/// whole numbers without a fraction (Go's JSON encoding of a float), and the
/// server's decoder reads an integer literal in the int64 range as one.
fn decodes_as_int(d: f64) -> bool {
    d.fract() == 0.0 && d.abs() < i64::MAX as f64
}

/// Go's `%T` of a CEL value's `Value()`, the Go value the server's lists append (not
/// the CEL value's own Go type, which `interp` names for qualifier errors).
pub(crate) fn go_native_type(v: &Val) -> &'static str {
    match v {
        Val::Null => "structpb.NullValue",
        Val::Bool(_) => "bool",
        Val::Int(_) => "int64",
        Val::Uint(_) => "uint64",
        Val::Double(_) => "float64",
        Val::String(_) => "string",
        Val::Bytes(_) => "[]uint8",
        Val::Timestamp(..) => "time.Time",
        Val::Duration(_) => "time.Duration",
        Val::List(_) => "[]ref.Val",
        Val::Joined(..) | Val::DataList(..) | Val::SetList(..) | Val::MapList(..) => {
            "[]interface {}"
        }
        Val::Map(_) => "map[ref.Val]ref.Val",
        Val::DataMap(..) => "map[string]interface {}",
        _ => "interface {}",
    }
}

/// An element `+` appends to a list read from the object, as the server reads it
/// back: its lists append each element's Go value (`Value()`) to the raw data and read
/// it with the item schema, where a timestamp, duration, bytes, `null`, or a list or
/// map CEL built is not data of the schema's type (and a string is parsed again).
pub(crate) fn reread(v: &Val, kind: DataKind) -> Val {
    let invalid = |m: String| Val::Error(Arc::from(m));
    let got = go_native_type(v);
    match (kind, v) {
        (_, Val::Error(_)) | (DataKind::Untyped, _) => v.clone(),
        (DataKind::IntOrString, Val::String(_) | Val::Int(_)) => v.clone(),
        (DataKind::IntOrString, _) => invalid(
            "invalid data, expected XIntOrString value to be either a string or integer".into(),
        ),
        (DataKind::Object, Val::DataMap(..)) => v.clone(),
        (DataKind::Object, _) => {
            invalid("invalid data, expected a map for the provided schema with type=object".into())
        }
        (
            DataKind::Array,
            Val::Joined(..) | Val::DataList(..) | Val::SetList(..) | Val::MapList(..),
        ) => v.clone(),
        (DataKind::Array, _) => invalid(
            "invalid data, expected an array for the provided schema with type=array".into(),
        ),
        (DataKind::String(format), Val::String(s)) => read_string(s, format),
        (DataKind::String(_), _) => invalid(format!("invalid data, expected string, got {got}")),
        (DataKind::Number, Val::Int(i)) => Val::Double(*i as f64),
        (DataKind::Number, Val::Double(_)) => v.clone(),
        (DataKind::Number, _) => invalid(format!("invalid data, expected float, got {got}")),
        (DataKind::Integer, Val::Int(_)) => v.clone(),
        (DataKind::Integer, _) => invalid(format!("invalid data, expected int, got {got}")),
        (DataKind::Boolean, Val::Bool(_)) => v.clone(),
        (DataKind::Boolean, _) => invalid(format!("invalid data, expected bool, got {got}")),
    }
}

/// A field the schema does not declare: kept (the server's object map holds the data;
/// it counts in the object's size and equality) under a key no selection reaches.
fn unknown_entry(name: &str, value: &Node, depth: usize) -> (Val, Val) {
    (
        Val::String(Arc::from(format!("\u{1}{name}"))),
        convert(value, None, false, depth + 1),
    )
}

/// What an object's map key stands for.
pub(crate) enum ObjectKey<'a> {
    /// A map key or a declared field with a value.
    Plain,
    /// A declared (nullable) field whose value is null.
    NullField(&'a str),
    /// A field the schema does not declare.
    Unknown,
}

pub(crate) fn object_key(k: &Val) -> ObjectKey<'_> {
    match k {
        Val::String(s) => match s.chars().next() {
            Some('\0') => ObjectKey::NullField(&s[1..]),
            Some('\u{1}') => ObjectKey::Unknown,
            _ => ObjectKey::Plain,
        },
        _ => ObjectKey::Plain,
    }
}

/// The entries iterating a map or object yields (the server's `Iterator`, then `Get`).
/// The server's key list has a slot per key but fills only declared fields' (a
/// null-valued one yields its name and "no such key"): each field the schema does not
/// know leaves a nil slot at the end, which CEL reads as `null` (and `Get(null)`
/// answers "no such overload").
pub(crate) fn iterated_entries(m: &[(Val, Val)]) -> impl Iterator<Item = (Val, Val)> + '_ {
    let declared = m.iter().filter_map(|(k, v)| match object_key(k) {
        ObjectKey::Plain => Some((k.clone(), v.clone())),
        ObjectKey::NullField(name) => Some((
            Val::str(name),
            Val::Error(Arc::from(format!("no such key: {name}"))),
        )),
        ObjectKey::Unknown => None,
    });
    let unknown = m
        .iter()
        .filter(|(k, _)| matches!(object_key(k), ObjectKey::Unknown))
        .map(|_| (Val::Null, Val::Error(Arc::from("no such overload"))));
    declared.chain(unknown)
}

/// Whether a value holds an object with a field the schema does not know, where
/// formatting it (`%s` on the list or object) would reach the nil key slot: the
/// server's formatter then panics.
pub(crate) fn formats_unknown_field(v: &Val) -> bool {
    match v {
        Val::Map(m) | Val::DataMap(m, _) => m.iter().any(|(k, v)| match object_key(k) {
            ObjectKey::Unknown => true,
            ObjectKey::Plain => formats_unknown_field(v),
            ObjectKey::NullField(_) => false,
        }),
        Val::List(l)
        | Val::Joined(l, _)
        | Val::DataList(l, _)
        | Val::SetList(l, _)
        | Val::MapList(l, _) => l.iter().any(formats_unknown_field),
        _ => false,
    }
}

/// The key a null-valued property (of a nullable field) gets in an object's map. The
/// server's object map keeps such a property: it counts in the object's size and
/// equality (`{a: null}` is not `{}`), while field selection and `has()` treat it as
/// absent. A key no field name can be (names are selected as exact strings) gives
/// both.
fn null_property_key(name: &str) -> Val {
    Val::String(Arc::from(format!("\0{name}")))
}

/// `UnstructuredToVal`'s errors for data of another type than the schema's (reached
/// only where OpenAPI validation let it through, e.g. a list for a `format`ted
/// string). Nulls are left to the caller (absent properties).
fn type_mismatch(value: &NodeValue, type_: &str, int_or_string: bool) -> Option<String> {
    if matches!(value, NodeValue::Null) {
        return None;
    }
    // Go's `%T` of the decoded JSON value.
    let go_type = match value {
        NodeValue::Bool(_) => "bool",
        NodeValue::Int(_) => "int64",
        NodeValue::Float(_) => "float64",
        NodeValue::String(_) => "string",
        NodeValue::Array(_) => "[]interface {}",
        NodeValue::Object(_) => "map[string]interface {}",
        NodeValue::Null => "<nil>",
    };
    if int_or_string {
        return (!matches!(value, NodeValue::String(_) | NodeValue::Int(_))).then(|| {
            "invalid data, expected XIntOrString value to be either a string or integer".into()
        });
    }
    let ok = match type_ {
        "object" => matches!(value, NodeValue::Object(_)),
        "array" => matches!(value, NodeValue::Array(_)),
        "string" => matches!(value, NodeValue::String(_)),
        "number" => matches!(value, NodeValue::Int(_) | NodeValue::Float(_)),
        "integer" => matches!(value, NodeValue::Int(_)),
        "boolean" => matches!(value, NodeValue::Bool(_)),
        _ => true,
    };
    if ok {
        return None;
    }
    Some(match type_ {
        "object" => "invalid data, expected a map for the provided schema with type=object".into(),
        "array" => "invalid data, expected an array for the provided schema with type=array".into(),
        "string" => format!("invalid data, expected string, got {go_type}"),
        "number" => format!("invalid data, expected float, got {go_type}"),
        "integer" => format!("invalid data, expected int, got {go_type}"),
        _ => format!("invalid data, expected bool, got {go_type}"),
    })
}

/// kube-openapi strfmt's fallback duration syntax: every `<digits><unit>` in the text
/// (`3 days`, `1 hour 5 min`), with its unit spellings; Go's wrapping arithmetic.
fn strfmt_duration(s: &str) -> Option<i64> {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = RE
        .get_or_init(|| regex::Regex::new(r"(((?-u:\d)+)(?-u:\s)*([A-Za-zµ]+))").ok())
        .as_ref()?;
    const UNITS: &[(&[&str], i64)] = &[
        (&["ns", "nano"], 1),
        (&["us", "µs", "micro"], 1_000),
        (&["ms", "milli"], 1_000_000),
        (&["s", "sec"], 1_000_000_000),
        (&["m", "min"], 60_000_000_000),
        (&["h", "hr", "hour"], 3_600_000_000_000),
        (&["d", "day"], 86_400_000_000_000),
        (&["w", "wk", "week"], 604_800_000_000_000),
    ];
    let mut total: i64 = 0;
    let mut ok = false;
    for caps in re.captures_iter(s) {
        let factor: i64 = caps.get(2)?.as_str().parse().ok()?;
        let unit = caps.get(3)?.as_str().trim().to_lowercase();
        for (variants, mult) in UNITS {
            let last = variants.len() - 1;
            for (i, v) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(v)) || unit == *v {
                    ok = true;
                    total = total.wrapping_add(factor.wrapping_mul(*mult));
                }
            }
        }
    }
    ok.then_some(total)
}
