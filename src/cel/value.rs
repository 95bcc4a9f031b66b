//! Runtime values of crdlint's CEL interpreter, and the conversion of a custom
//! resource's values into them, typed by the schema as the server types them
//! (apiserver `pkg/cel/common/values.go`): integers stay `int`, numbers are `double`,
//! `date`/`date-time` strings are timestamps, `duration` strings durations, `byte`
//! strings bytes, objects expose their escaped property names.

use std::cmp::Ordering;
use std::sync::Arc;

use super::schema_types::escape;
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
    List(Arc<Vec<Val>>),
    /// Maps and objects: entries in insertion order with unique keys.
    Map(Arc<Vec<(Val, Val)>>),
    /// Seconds and nanoseconds since the Unix epoch (UTC).
    Timestamp(i64, u32),
    /// Nanoseconds.
    Duration(i64),
    Optional(Option<Box<Val>>),
    Type(String),
    /// A value of a Kubernetes library type, as its canonical string.
    Ext(&'static str, Arc<str>),
}

impl Val {
    pub fn str(s: &str) -> Val {
        Val::String(Arc::from(s))
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
            Val::List(_) => "list".into(),
            Val::Map(_) => "map".into(),
            Val::Timestamp(..) => "google.protobuf.Timestamp".into(),
            Val::Duration(_) => "google.protobuf.Duration".into(),
            Val::Optional(_) => "optional_type".into(),
            Val::Type(_) => "type".into(),
            Val::Ext(n, _) => (*n).into(),
        }
    }

    /// CEL equality (heterogeneous numeric equality, deep for aggregates).
    pub fn equals(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Null, Val::Null) => true,
            (Val::Bool(a), Val::Bool(b)) => a == b,
            (Val::String(a), Val::String(b)) => a == b,
            (Val::Bytes(a), Val::Bytes(b)) => a == b,
            (Val::Timestamp(a, b), Val::Timestamp(c, d)) => a == c && b == d,
            (Val::Duration(a), Val::Duration(b)) => a == b,
            (Val::Type(a), Val::Type(b)) => a == b,
            (Val::Ext(n1, a), Val::Ext(n2, b)) => n1 == n2 && a == b,
            (Val::Optional(a), Val::Optional(b)) => match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) => a.equals(b),
                _ => false,
            },
            (Val::List(a), Val::List(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.equals(y))
            }
            (Val::Map(a), Val::Map(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(k, v)| {
                        b.iter()
                            .find(|(k2, _)| k.equals(k2))
                            .is_some_and(|(_, v2)| v.equals(v2))
                    })
            }
            _ => matches!(self.numeric_cmp(other), Some(Ordering::Equal)),
        }
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
            (Int(a), Double(b)) => cmp_i_d(*a as i128, *b),
            (Double(a), Int(b)) => cmp_i_d(*b as i128, *a).map(Ordering::reverse),
            (Uint(a), Double(b)) => cmp_i_d(*a as i128, *b),
            (Double(a), Uint(b)) => cmp_i_d(*b as i128, *a).map(Ordering::reverse),
            _ => None,
        }
    }

    /// Ordering for `<` and the list library (same-kind values, numerics across kinds).
    pub fn compare(&self, other: &Val) -> Option<Ordering> {
        match (self, other) {
            (Val::Bool(a), Val::Bool(b)) => Some(a.cmp(b)),
            (Val::String(a), Val::String(b)) => Some(a.cmp(b)),
            (Val::Bytes(a), Val::Bytes(b)) => Some(a.cmp(b)),
            (Val::Timestamp(a, b), Val::Timestamp(c, d)) => Some((a, b).cmp(&(c, d))),
            (Val::Duration(a), Val::Duration(b)) => Some(a.cmp(b)),
            _ => self.numeric_cmp(other),
        }
    }
}

fn cmp_i_d(i: i128, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d >= 1.8446744073709552e19 {
        return Some(Ordering::Less);
    }
    if d < -9.223_372_036_854_776e18 {
        return Some(Ordering::Greater);
    }
    let fl = d.floor();
    match i.cmp(&(fl as i128)) {
        Ordering::Equal if d > fl => Some(Ordering::Less),
        o => Some(o),
    }
}

/// Converts a manifest value typed by its structural schema (`None`: untyped, as
/// under preserve-unknown-fields).
pub fn from_node(node: &Node, schema: Option<&Structural>, depth: usize) -> Val {
    if depth > 1000 {
        return Val::Null;
    }
    let format = schema
        .and_then(|s| s.value_validation.as_deref())
        .map(|v| v.format.as_str())
        .unwrap_or("");
    let int_or_string = schema.is_some_and(|s| s.extensions.x_int_or_string);
    match &node.value {
        NodeValue::Null => Val::Null,
        NodeValue::Bool(b) => Val::Bool(*b),
        NodeValue::Int(i) => {
            if schema.is_some_and(|s| s.generic.type_ == "number") {
                Val::Double(*i as f64)
            } else {
                Val::Int(*i)
            }
        }
        NodeValue::Float(f) => Val::Double(*f),
        NodeValue::String(s) if !int_or_string => match format {
            "date-time" | "date" => {
                let parsed = if format == "date" {
                    super::gotime::parse_rfc3339(&format!("{s}T00:00:00Z"))
                } else {
                    super::gotime::parse_rfc3339(s)
                };
                match parsed {
                    Ok(ts) => Val::Timestamp(ts.seconds, ts.nanos),
                    Err(_) => Val::str(s),
                }
            }
            "duration" => match super::gotime::parse_duration(s) {
                Ok(n) => Val::Duration(n),
                Err(_) => Val::str(s),
            },
            "byte" => match base64_decode(s) {
                Some(b) => Val::Bytes(Arc::from(b)),
                None => Val::str(s),
            },
            _ => Val::str(s),
        },
        NodeValue::String(s) => Val::str(s),
        NodeValue::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            Val::List(Arc::new(
                items
                    .iter()
                    .map(|i| from_node(i, item_schema, depth + 1))
                    .collect(),
            ))
        }
        NodeValue::Object(map) => {
            let mut entries = Vec::with_capacity(map.len());
            for (k, v) in map.iter() {
                match schema {
                    Some(s) if !s.properties.is_empty() => {
                        if let Some(prop) = s.property(k) {
                            if let Some(name) = escape(k) {
                                entries
                                    .push((Val::str(&name), from_node(v, Some(prop), depth + 1)));
                            }
                        } else if let Some(StructuralOrBool::Structural(ap)) =
                            &s.additional_properties
                        {
                            entries.push((Val::str(k), from_node(v, Some(ap), depth + 1)));
                        }
                    }
                    Some(s) => {
                        let vs = match &s.additional_properties {
                            Some(StructuralOrBool::Structural(ap)) => Some(&**ap),
                            _ => None,
                        };
                        entries.push((Val::str(k), from_node(v, vs, depth + 1)));
                    }
                    None => entries.push((Val::str(k), from_node(v, None, depth + 1))),
                }
            }
            Val::Map(Arc::new(entries))
        }
    }
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut buf = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        } as u32;
        buf = (buf << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    Some(out)
}
