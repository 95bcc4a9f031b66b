//! Membership in a long `enum` without comparing against every member.
//!
//! kube-openapi compares a value with each member in turn (converted to the member's
//! Go type). With a 3 MiB CRD's enum of 20,000 values and a 2 MB resource of 150,000
//! items, that was 3 billion comparisons (8 s); the limits allow hundreds of times
//! more. An [`EnumIndex`] answers the same question by hashing, for every conversion
//! kube-openapi's comparison makes between scalars ([`super::validate`]'s
//! `enum_matches`): an integer equals an integer member, a float member equal to it
//! as a float, or a string member of one character with its code point; a float
//! equals a float member, or an integer member equal to its truncation; a string or a
//! boolean only its like. Lists and maps are compared with each member as before.

use std::collections::HashSet;

use crate::source::{Node, Value};

/// Below this many members, comparing with each is as quick.
pub const INDEXED_FROM: usize = 32;

#[derive(Debug, Default)]
pub struct EnumIndex {
    strings: HashSet<String>,
    ints: HashSet<i64>,
    /// Float members by their bits, -0 as 0 (NaN is equal to nothing).
    floats: HashSet<u64>,
    bools: HashSet<bool>,
}

fn float_bits(f: f64) -> Option<u64> {
    (!f.is_nan()).then(|| (f + 0.0).to_bits())
}

impl EnumIndex {
    pub fn new(members: &[Node]) -> EnumIndex {
        let mut index = EnumIndex::default();
        for m in members {
            match &m.value {
                Value::String(s) => {
                    index.strings.insert(s.clone());
                }
                Value::Int(i) => {
                    index.ints.insert(*i);
                }
                Value::Float(f) => index.floats.extend(float_bits(*f)),
                Value::Bool(b) => {
                    index.bools.insert(*b);
                }
                // Null, lists and maps: only values of their own kind can equal them,
                // which are compared with each member.
                _ => {}
            }
        }
        index
    }

    /// Whether a scalar value is a member. None for a list or a map.
    pub fn contains(&self, data: &Value) -> Option<bool> {
        Some(match data {
            Value::String(s) => self.strings.contains(s),
            Value::Bool(b) => self.bools.contains(b),
            Value::Int(i) => {
                self.ints.contains(i)
                    || float_bits(*i as f64).is_some_and(|b| self.floats.contains(&b))
                    || self.strings.contains(&code_point(*i))
            }
            Value::Float(f) => {
                float_bits(*f).is_some_and(|b| self.floats.contains(&b))
                    || self.ints.contains(&super::validate::go_float_to_int(*f))
            }
            Value::Null => false,
            Value::Array(_) | Value::Object(_) => return None,
        })
    }
}

/// Go's `string(rune(i))`: the code point, or U+FFFD when there is none.
fn code_point(i: i64) -> String {
    u32::try_from(i)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{FFFD}')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::validate::enum_matches;
    use crate::source::Span;

    #[test]
    fn membership_is_kube_openapis_comparison_with_each_member() {
        let scalars = [
            Value::String("a".into()),
            Value::String("A".into()),
            Value::String("é".into()),
            Value::String("\u{FFFD}".into()),
            Value::String("5".into()),
            Value::String(String::new()),
            Value::Int(5),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(i64::MAX),
            Value::Float(2.5),
            Value::Float(-0.0),
            Value::Float(7.0),
            Value::Float(f64::NAN),
            Value::Float(9.3e18),
            Value::Bool(true),
            Value::Bool(false),
            Value::Null,
        ];
        let values = scalars.iter().cloned().chain([
            Value::Int(65),
            Value::Int(233),
            Value::Int(0xFFFD),
            Value::Int(0xD800),
            Value::Int(7),
            Value::Int(2),
            Value::Float(5.9),
            Value::Float(-1.5),
            Value::Float(0.0),
            Value::Float(65.0),
            Value::Float(f64::INFINITY),
            Value::Int(i64::MIN),
        ]);
        let values: Vec<Value> = values.collect();
        // Every subset of members in a sliding window, so that each value meets
        // each member alone and with others.
        for start in 0..scalars.len() {
            for len in 1..=4 {
                let members: Vec<Node> = scalars
                    .iter()
                    .cycle()
                    .skip(start)
                    .take(len)
                    .map(|v| Node::new(v.clone(), Span::default()))
                    .collect();
                let index = EnumIndex::new(&members);
                for v in &values {
                    let linear = members.iter().any(|m| enum_matches(v, &m.value));
                    let linear = linear && !matches!(v, Value::Null);
                    let hashed = index.contains(v).unwrap() && !matches!(v, Value::Null);
                    assert_eq!(hashed, linear, "{v:?} in {members:?}");
                }
            }
        }
    }
}
