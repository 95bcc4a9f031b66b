//! Membership in a long `enum` without comparing against every member, and duplicates
//! in a long `uniqueItems` list without comparing every pair.
//!
//! kube-openapi compares a value with each member in turn (converted to the member's
//! Go type). With a 3 MiB CRD's enum of 20,000 values and a 2 MB resource of 150,000
//! items, that was 3 billion comparisons (8 s); the limits allow hundreds of times
//! more. An [`EnumIndex`] answers the same question by hashing, for every conversion
//! kube-openapi's comparison makes between scalars ([`super::validate`]'s
//! `enum_matches`): an integer equals an integer member, a float member equal to it
//! as a float, or a string member of one character with its code point; a float
//! equals a float member, or an integer member equal to its truncation; a string or a
//! boolean only its like. A list or a map equals only a member that is deeply equal
//! (`reflect.DeepEqual`, no conversions inside): members are grouped by a structural
//! hash that deeply equal values share, and a value is compared only with its group
//! (a 200 KB CRD's 8,000 object members against 8,000 items was 64 million deep
//! comparisons).

use std::collections::{HashMap, HashSet};

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
    /// List and map members by [`structural_hash`]: indices into the members.
    composites: HashMap<u64, Vec<usize>>,
}

fn float_bits(f: f64) -> Option<u64> {
    (!f.is_nan()).then(|| (f + 0.0).to_bits())
}

impl EnumIndex {
    pub fn new(members: &[Node]) -> EnumIndex {
        let mut index = EnumIndex::default();
        for (i, m) in members.iter().enumerate() {
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
                Value::Array(_) | Value::Object(_) => index
                    .composites
                    .entry(structural_hash(&m.value))
                    .or_default()
                    .push(i),
                // Only null equals null, and a null value is never a member.
                Value::Null => {}
            }
        }
        index
    }

    /// Whether `data` is a member; `members` are the ones the index was built from.
    pub fn contains(&self, members: &[Node], data: &Value) -> bool {
        match data {
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
            Value::Array(_) | Value::Object(_) => self
                .composites
                .get(&structural_hash(data))
                .is_some_and(|group| {
                    group
                        .iter()
                        .any(|&i| super::validate::enum_matches(data, &members[i].value))
                }),
        }
    }
}

/// Whether two of `items` are deeply equal (`uniqueItems`), comparing only items of
/// equal [`structural_hash`]: comparing every pair made 160,000 items take 30 s.
pub fn has_deep_duplicate(items: &[Node]) -> bool {
    if items.len() < INDEXED_FROM {
        return items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].iter().any(|b| deep_equal(a, b)));
    }
    let mut groups: HashMap<u64, Vec<usize>> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let group = groups.entry(structural_hash(&item.value)).or_default();
        if group.iter().any(|&j| deep_equal(item, &items[j])) {
            return true;
        }
        group.push(i);
    }
    false
}

fn deep_equal(a: &Node, b: &Node) -> bool {
    super::validate::go_deep_equal(a, b)
}

/// A hash that deeply equal values share: integers and floats apart (DeepEqual tells
/// int64 from float64), -0 as 0, a map's entries in any order.
fn structural_hash(value: &Value) -> u64 {
    let mut h = Fnv::new(value_kind(value));
    match value {
        Value::Null => {}
        Value::Bool(b) => h.write(&[u8::from(*b)]),
        Value::Int(i) => h.write(&i.to_le_bytes()),
        Value::Float(f) => h.write(&(f + 0.0).to_bits().to_le_bytes()),
        Value::String(s) => h.write(s.as_bytes()),
        Value::Array(items) => {
            h.write(&items.len().to_le_bytes());
            for item in items {
                h.write(&structural_hash(&item.value).to_le_bytes());
            }
        }
        Value::Object(map) => {
            h.write(&map.len().to_le_bytes());
            // Keys are unique in a decoded map, so a sum over entries is order-free.
            let entries = map.entries.iter().fold(0u64, |sum, e| {
                let mut entry = Fnv::new(0);
                entry.write(e.key.as_bytes());
                entry.write(&structural_hash(&e.value.value).to_le_bytes());
                sum.wrapping_add(entry.finish())
            });
            h.write(&entries.to_le_bytes());
        }
    }
    h.finish()
}

fn value_kind(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Int(_) => 2,
        Value::Float(_) => 3,
        Value::String(_) => 4,
        Value::Array(_) => 5,
        Value::Object(_) => 6,
    }
}

/// FNV-1a, with a final mix so that sums of entry hashes spread.
struct Fnv(u64);

impl Fnv {
    fn new(kind: u8) -> Fnv {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        h.write(&[kind]);
        h
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^ (x >> 33)
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
        assert_index_agrees_with_each_member(&scalars, &values, 4);
    }

    /// Every window of up to `max_len` members taken in turn from `pool`, checked on
    /// every value: so that each value meets each member alone and with others.
    fn assert_index_agrees_with_each_member(pool: &[Value], values: &[Value], max_len: usize) {
        for start in 0..pool.len() {
            for len in 1..=max_len {
                let members: Vec<Node> = pool
                    .iter()
                    .cycle()
                    .skip(start)
                    .take(len)
                    .map(|v| Node::new(v.clone(), Span::default()))
                    .collect();
                let index = EnumIndex::new(&members);
                for v in values {
                    let linear = members.iter().any(|m| enum_matches(v, &m.value));
                    let linear = linear && !matches!(v, Value::Null);
                    let hashed = index.contains(&members, v) && !matches!(v, Value::Null);
                    assert_eq!(hashed, linear, "{v:?} in {members:?}");
                }
            }
        }
    }

    fn map(entries: &[(&str, Value)]) -> Value {
        let mut m = crate::source::Mapping::default();
        for (k, v) in entries {
            m.entries.push(crate::source::Entry {
                key: (*k).to_string(),
                key_span: Span::default(),
                value: Node::new(v.clone(), Span::default()),
            });
        }
        Value::Object(m)
    }

    fn list(items: &[Value]) -> Value {
        Value::Array(
            items
                .iter()
                .map(|v| Node::new(v.clone(), Span::default()))
                .collect(),
        )
    }

    #[test]
    fn lists_and_maps_are_members_only_when_deeply_equal() {
        let composites = [
            list(&[]),
            list(&[Value::Int(1)]),
            list(&[Value::Float(1.0)]),
            list(&[Value::Float(-0.0)]),
            list(&[Value::Float(0.0)]),
            list(&[Value::Float(f64::NAN)]),
            list(&[Value::Int(1), Value::Int(2)]),
            list(&[Value::Int(2), Value::Int(1)]),
            list(&[Value::String("1".into())]),
            list(&[Value::Null]),
            list(&[list(&[])]),
            map(&[]),
            map(&[("a", Value::Int(1))]),
            map(&[("a", Value::Float(1.0))]),
            map(&[("a", Value::Int(1)), ("b", Value::Bool(true))]),
            map(&[("b", Value::Bool(true)), ("a", Value::Int(1))]),
            map(&[("a", Value::Int(1)), ("b", Value::Bool(false))]),
            map(&[("a", list(&[map(&[("x", Value::Null)])]))]),
            map(&[("a", list(&[map(&[("y", Value::Null)])]))]),
            map(&[("ab", Value::Int(1))]),
        ];
        let scalars = [Value::Int(1), Value::String("a".into()), Value::Null];
        let values: Vec<Value> = composites.iter().chain(&scalars).cloned().collect();
        assert_index_agrees_with_each_member(&values, &values, 3);
        // The order of a map's entries does not matter; the order of a list's does.
        let members = [Node::new(composites[14].clone(), Span::default())];
        let index = EnumIndex::new(&members);
        assert!(index.contains(&members, &composites[15]));
        let members = [Node::new(composites[6].clone(), Span::default())];
        let index = EnumIndex::new(&members);
        assert!(!index.contains(&members, &composites[7]));
    }

    #[test]
    fn duplicates_are_found_among_items_of_equal_hash_only_when_deeply_equal() {
        let pool = [
            list(&[Value::Int(1)]),
            list(&[Value::Float(1.0)]),
            map(&[("a", Value::Int(1)), ("b", Value::Null)]),
            map(&[("b", Value::Null), ("a", Value::Int(1))]),
            Value::Float(-0.0),
            Value::Float(0.0),
            Value::Float(f64::NAN),
            Value::Int(0),
            Value::String("0".into()),
        ];
        // Long lists of distinct strings, plus two values of the pool, at every pair
        // of places: the hashed search agrees with comparing every pair.
        for (x, a) in pool.iter().enumerate() {
            for b in &pool[x..] {
                let mut items: Vec<Node> = (0..40)
                    .map(|i| Node::new(Value::String(format!("s{i}")), Span::default()))
                    .collect();
                items[3] = Node::new(a.clone(), Span::default());
                items[37] = Node::new(b.clone(), Span::default());
                let pairwise = items.iter().enumerate().any(|(i, p)| {
                    items[..i]
                        .iter()
                        .any(|q| crate::schema::validate::go_deep_equal(p, q))
                });
                assert_eq!(has_deep_duplicate(&items), pairwise, "{a:?} {b:?}");
                assert!(!has_deep_duplicate(&items[..5]));
            }
        }
    }
}
