//! Equality faults: the comparisons the API server answers with an error or a panic
//! where plain CEL equality would answer (library values against other kinds, data
//! lists and maps against other kinds, a derived quantity on the right, set and map
//! lists holding values Go cannot hash).

use super::*;
use crate::cel::{lookup, value};

/// Equalities the server answers with an error: a quantity produced by `add`/`sub`
/// on the right of `==` (its `Equal` only accepts a non-pointer quantity), and a
/// Kubernetes library value (quantity, URL, IP, CIDR, semver, format) on the left of
/// a value of another type (their `Equal` answers "no such overload" where cel-go's
/// own types answer false; `null` is compared before `Equal`), and a set or map list
/// on the left of anything but a list.
pub(super) fn equality_error(x: &Val, y: &Val) -> bool {
    // The library types are the ones the cost functions compare at unit cost.
    let library_value = runtime::CostValue::is_unit_equality_type(x);
    let other_kind = std::mem::discriminant(x) != std::mem::discriminant(y)
        && !matches!(y, Val::Null | Val::Error(_));
    // cel-go's `Equal` answers `null` operands itself.
    let data_against_scalar = !matches!(y, Val::Null) && data_against_other_kind(x, y);
    (library_value && other_kind) || data_against_scalar || derived_quantity_on_right(x, y)
}

/// Whether cel-go's `Equal` of two elements of its own lists (`types.Equal`: `null`
/// first, then the element's `Equal`) fails: its lists count such a pair as equal.
pub(crate) fn element_equality_fails(p: &Val, q: &Val) -> bool {
    if matches!(p, Val::Null) || matches!(q, Val::Null) {
        return false;
    }
    equality_error(p, q)
        || matches!(
            equality_fault(p, q),
            Some(EqualityFault::InvalidData(_) | EqualityFault::NoOverload)
        )
}

/// The server's lists and maps read from the object (`unstructuredList`, its set and
/// map lists, `unstructuredMap`) answer "no such overload" when compared with a value
/// of another kind, where cel-go's own lists and maps answer false. Their elements
/// are compared by the element's own `Equal`, without `null` answered first.
pub(super) fn data_against_other_kind(x: &Val, y: &Val) -> bool {
    let other_kind = match x {
        Val::DataList(..) | Val::SetList(..) | Val::MapList(..) => y.list_items().is_none(),
        Val::DataMap(..) => y.map_entries().is_none(),
        _ => false,
    };
    other_kind && !matches!(y, Val::Error(_))
}

/// Within lists too (this error is not the elements' `Equal` of another type, which
/// cel-go's lists treat as not unequal).
fn derived_quantity_on_right(x: &Val, y: &Val) -> bool {
    match (x, y) {
        (Val::Quantity(_), Val::Quantity(q)) => q.derived,
        (a, b) if a.list_items().is_some() && b.list_items().is_some() => {
            let (a, b) = (a.list_items().unwrap_or(&[]), b.list_items().unwrap_or(&[]));
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .any(|(p, q)| derived_quantity_on_right(p, q))
        }
        _ => false,
    }
}

/// Why the server's `Equal` of two values is an error instead of a boolean.
pub(super) enum EqualityFault<'a> {
    /// An element holds data of another type than its schema.
    InvalidData(&'a Arc<str>),
    /// A list or object element read from the object was compared with a value of
    /// another kind ([`data_against_other_kind`]).
    NoOverload,
    /// A set list of the object was compared: the server hashes its raw
    /// elements, and a map or list element panics (`hash of unhashable type`).
    Unhashable(&'static str),
}

/// The Go type of a set list's raw element that cannot be a Go map key: objects and
/// lists, also as invalid data the element's schema did not expect.
pub(super) fn unhashable_go_type(v: &Val) -> Option<&'static str> {
    const MAP: &str = "map[string]interface {}";
    const SLICE: &str = "[]interface {}";
    match v {
        Val::Map(_) | Val::DataMap(..) => Some(MAP),
        Val::List(_)
        | Val::Joined(..)
        | Val::DataList(..)
        | Val::SetList(..)
        | Val::MapList(..) => Some(SLICE),
        Val::Error(m) if m.ends_with(&format!("got {MAP}")) => Some(MAP),
        Val::Error(m) if m.ends_with(&format!("got {SLICE}")) => Some(SLICE),
        _ => None,
    }
}

/// The Go type of a value's `Value()` that cannot be a Go map key, for the values a
/// set list looks up or adds: the raw data of lists and objects read from the object,
/// lists and maps CEL built, and bytes.
pub(super) fn unhashable_value_type(v: &Val) -> Option<&'static str> {
    let go_type = value::go_native_type(v);
    (go_type.starts_with("[]") || go_type.starts_with("map[")).then_some(go_type)
}

/// Whether `v` holds a set list with an element [`unhashable_go_type`] names: only
/// then can an equality that holds still be the server's panic.
pub(super) fn holds_unhashable_set_element(v: &Val) -> bool {
    match v {
        Val::SetList(items, _) => items.iter().any(|x| unhashable_go_type(x).is_some()),
        Val::List(items)
        | Val::Joined(items, _)
        | Val::DataList(items, _)
        | Val::MapList(items, _) => items.iter().any(holds_unhashable_set_element),
        Val::Map(entries) | Val::DataMap(entries, _) => {
            entries.iter().any(|(_, x)| holds_unhashable_set_element(x))
        }
        Val::Optional(Some(x)) => holds_unhashable_set_element(x),
        _ => false,
    }
}

/// The Go runtime panic the server's evaluation recovers as the rule's error; it
/// unwinds the whole expression, so no `||` absorbs it.
pub(super) fn unhashable_panic(go_type: &str) -> EvalError {
    EvalError::Internal(format!(
        "internal error: runtime error: hash of unhashable type {go_type}"
    ))
}

/// The server's lists and maps convert their elements while `Equal` walks them
/// (left operand first, stopping at the first difference): an element holding data
/// of another type than its schema makes the comparison an error instead of a
/// boolean. The server walks a map in Go's random order; crdlint takes the
/// manifest's order.
pub(super) fn equality_fault<'a>(x: &'a Val, y: &'a Val) -> Option<EqualityFault<'a>> {
    use EqualityFault::InvalidData;
    match (x, y) {
        (Val::Error(m), _) => Some(InvalidData(m)),
        (x, Val::Error(m)) if x.list_items().is_some() || x.map_entries().is_some() => {
            Some(InvalidData(m))
        }
        // cel-go's Optional.Equal compares the values inside.
        (Val::Optional(Some(a)), Val::Optional(Some(b))) => equality_fault(a, b),
        // Objects, lists and map lists: one walk answers both questions.
        (Val::Map(_) | Val::DataMap(..), Val::Map(_) | Val::DataMap(..)) => {
            fault_and_equality(x, y).0
        }
        (Val::List(_) | Val::Joined(..) | Val::DataList(..), b) if b.list_items().is_some() => {
            fault_and_equality(x, y).0
        }
        (Val::MapList(..), b) if b.list_items().is_some() => fault_and_equality(x, y).0,
        // A set list compared with another set list of the object: the other's raw
        // elements are hashed into a set, then each of this list's looked up.
        (Val::SetList(a, kind), Val::SetList(b, _)) => {
            if a.len() != b.len() {
                return None;
            }
            b.iter()
                .chain(a.iter())
                .find_map(unhashable_go_type)
                .or_else(|| looked_up_unhashable(a, *kind, b))
                .map(EqualityFault::Unhashable)
        }
        // Otherwise set lists compare the raw values: no conversion, no error, but
        // for values that cannot be looked up.
        (Val::SetList(a, kind), b) => {
            let b = b.list_items()?;
            if a.len() != b.len() {
                return None;
            }
            looked_up_unhashable(a, *kind, b).map(EqualityFault::Unhashable)
        }
        _ => None,
    }
}

/// `(equality_fault(x, y), x.equals(y))`, in one walk where both walk the same
/// elements (objects, lists, map lists). [`equality_fault`] asks both of each element
/// it walks: separately, each level walked everything below it again, and `self ==
/// oldSelf` on a value 300 map lists deep that differs at its end (a rule at each
/// level) took 45 million comparisons, and past crdlint's work limit with wide leaves.
pub(super) fn fault_and_equality<'a>(x: &'a Val, y: &'a Val) -> (Option<EqualityFault<'a>>, bool) {
    use value::ObjectKey;
    match (x, y) {
        (Val::Map(a) | Val::DataMap(a, _), Val::Map(b) | Val::DataMap(b, _)) => {
            if a.len() != b.len() {
                return (None, false);
            }
            crate::cel::work::compared(a.len());
            let b = lookup::keys_of(b);
            // `equals` stops at the first difference; the fault walk goes on over
            // declared fields until one differs.
            let mut equal = true;
            for (k, v) in a.iter() {
                match value::object_key(k) {
                    ObjectKey::Unknown => {
                        equal = equal
                            && b.find(lookup::bucket(k), |k2| k.equals(k2))
                                .is_none_or(|(_, w)| v.deep_equal(w));
                    }
                    ObjectKey::NullField(name) => {
                        equal = equal && b.find_string(name).is_none();
                    }
                    ObjectKey::Plain => {
                        let Some((_, w)) = b.find(lookup::bucket(k), |k2| k.equals(k2)) else {
                            return (None, false);
                        };
                        if data_against_other_kind(v, w) {
                            return (Some(EqualityFault::NoOverload), false);
                        }
                        match fault_and_equality(v, w) {
                            (Some(f), _) => return (Some(f), false),
                            (None, false) => return (None, false),
                            (None, true) => {}
                        }
                    }
                }
            }
            (None, equal)
        }
        (Val::List(a) | Val::Joined(a, _) | Val::DataList(a, _), other)
            if other.list_items().is_some() =>
        {
            let data = matches!(x, Val::DataList(..));
            let b = other.list_items().unwrap_or(&[]);
            crate::cel::work::compared(a.len().min(b.len()));
            if a.len() != b.len() {
                return (None, false);
            }
            for (at, (p, q)) in a.iter().zip(b).enumerate() {
                if data && data_against_other_kind(p, q) {
                    return (Some(EqualityFault::NoOverload), false);
                }
                let (fault, equal) = fault_and_equality(p, q);
                match fault {
                    Some(f @ EqualityFault::Unhashable(_)) => return (Some(f), false),
                    Some(f) if data => return (Some(f), false),
                    _ => {}
                }
                if !equal {
                    // The fault walk stops here. cel-go's own lists count an element
                    // comparison that fails as equal, and go on.
                    let rest_equal = !data
                        && element_equality_fails(p, q)
                        && a[at + 1..]
                            .iter()
                            .zip(&b[at + 1..])
                            .all(|(p, q)| p.equals(q) || element_equality_fails(p, q));
                    return (None, rest_equal);
                }
            }
            (None, true)
        }
        (Val::MapList(a, keys), other) if other.list_items().is_some() => {
            let b = other.list_items().unwrap_or(&[]);
            if a.len() != b.len() {
                return (None, false);
            }
            crate::cel::work::compared(a.len());
            let by_key = value::map_list_positions(a, keys);
            for elem in b {
                let Some(key) = value::map_list_key(elem, keys) else {
                    return (None, false);
                };
                let bucket = lookup::key_bucket(&key);
                // `equals` matches keys natively; the fault walk matches invalid
                // data by its error. Where they pick different elements, ask apart.
                let by_equals = by_key.last(bucket, |i| {
                    value::map_list_key(&a[i], keys).is_some_and(|k| value::keys_eq(&key, &k))
                });
                let by_fault = by_key.last(bucket, |i| {
                    value::map_list_key(&a[i], keys)
                        .is_some_and(|k| k.iter().zip(&key).all(|(p, q)| same_map_key(p, q)))
                });
                if by_equals != by_fault {
                    return (map_list_fault(a, keys, b), x.equals(y));
                }
                let Some(i) = by_fault else {
                    return (None, false);
                };
                let known = &a[i];
                if data_against_other_kind(known, elem) {
                    return (Some(EqualityFault::NoOverload), false);
                }
                match fault_and_equality(known, elem) {
                    (Some(f), _) => return (Some(f), false),
                    (None, false) => return (None, false),
                    (None, true) => {}
                }
            }
            (None, true)
        }
        _ => (equality_fault(x, y), x.equals(y)),
    }
}

/// The fault walk of a map list alone: each element of the other list looked up by
/// its raw key (invalid key data matched by its error), then compared. Used where
/// that lookup and `equals`' pick different elements.
fn map_list_fault<'a>(a: &'a [Val], keys: &[String], b: &'a [Val]) -> Option<EqualityFault<'a>> {
    if a.len() != b.len() {
        return None;
    }
    let key_of = |v: &Val| value::map_list_key(v, keys);
    let by_key = value::map_list_positions(a, keys);
    for x in b {
        let kx = key_of(x)?;
        let i = by_key.last(lookup::key_bucket(&kx), |i| {
            key_of(&a[i]).is_some_and(|ky| ky.iter().zip(&kx).all(|(p, q)| same_map_key(p, q)))
        })?;
        let y = &a[i];
        if data_against_other_kind(y, x) {
            return Some(EqualityFault::NoOverload);
        }
        match fault_and_equality(y, x) {
            (Some(f), _) => return Some(f),
            (None, false) => return None,
            (None, true) => {}
        }
    }
    None
}

/// How a map list's fault walk matches a key part: invalid data by its error.
fn same_map_key(p: &Option<Val>, q: &Option<Val>) -> bool {
    match (p, q) {
        (None, None) => true,
        (Some(Val::Error(m)), Some(Val::Error(n))) => m == n,
        (Some(p), Some(q)) => p.native_eq(q),
        _ => false,
    }
}

/// The Go type of the first of `b`'s values a set list's `Equal` looks up in its raw
/// elements that cannot be a Go map key (bytes of a `format: byte` list, lists and
/// maps), unless a value before it was not found (the comparison stops there).
fn looked_up_unhashable(a: &[Val], kind: DataKind, b: &[Val]) -> Option<&'static str> {
    let members = lookup::Positions::of_values(a);
    for x in b {
        if let Some(t) = unhashable_value_type(x) {
            return Some(t);
        }
        // Not found: the comparison stops there.
        members.first(lookup::bucket(x), |i| value::set_member_eq(&a[i], x, kind))?;
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cel::testutil::structural;
    use crate::source::{Node, Span};

    fn describe(fault: Option<EqualityFault<'_>>) -> String {
        match fault {
            None => "none".into(),
            Some(EqualityFault::InvalidData(m)) => format!("invalid data: {m}"),
            Some(EqualityFault::NoOverload) => "no overload".into(),
            Some(EqualityFault::Unhashable(t)) => format!("unhashable {t}"),
        }
    }

    /// One walk answers what the two walks answer, on objects, lists, set and map
    /// lists and unknown fields, equal or not, with invalid data before or after the
    /// first difference.
    #[test]
    fn one_walk_answers_as_fault_then_equality() {
        let s = structural(&json!({
            "type": "object",
            "properties": {
                "m": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                      "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"},
                                "o": {"type": "object", "properties": {"a": {"type": "string"}}}}}},
                "l": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
                "s": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "u": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {"type": "integer"}}},
                "n": {"type": "string", "nullable": true}
            }
        }));
        let values = [
            json!({}),
            json!({"m": [{"k": "a", "v": 1, "o": {"a": "x"}}, {"k": "b", "v": 2}], "l": [[1, 2], [3]], "s": ["x", "y"]}),
            json!({"m": [{"k": "b", "v": 2}, {"k": "a", "v": 1, "o": {"a": "x"}}], "l": [[1, 2], [3]], "s": ["y", "x"]}),
            json!({"m": [{"k": "a", "v": "bad", "o": {"a": "x"}}, {"k": "b", "v": 2}], "l": [[1, 2], [3]]}),
            json!({"m": [{"k": "a", "v": 1, "o": {"a": 5}}, {"k": "b", "v": 3}], "l": [[1, "two"], [3]]}),
            json!({"m": [{"k": "a", "v": 1}, {"k": "b", "v": 2}], "l": [[1, 2], {"x": 1}], "s": ["x", "z"]}),
            json!({"u": {"a": 1, "extra": [1, {"b": 2}]}, "n": null}),
            json!({"u": {"a": 1, "extra": [1, {"b": 3}]}, "n": "v"}),
            json!({"u": {"a": "one", "extra": [1, {"b": 2}]}}),
        ];
        let vals: Vec<Val> = values
            .iter()
            .map(|v| value::from_resource_node(&Node::from_json(v, Span::default()), &s))
            .collect();
        let mut answers = Vec::new();
        for x in &vals {
            for y in &vals {
                let (fault, equal) = fault_and_equality(x, y);
                let expected = (describe(equality_fault(x, y)), x.equals(y));
                assert_eq!((describe(fault), equal), expected, "{x:?} vs {y:?}");
                answers.push(expected);
            }
        }
        // The pairs reach equal and unequal values, and faults.
        assert!(answers.iter().any(|(f, e)| f == "none" && *e));
        assert!(answers.iter().any(|(f, e)| f == "none" && !*e));
        assert!(answers.iter().any(|(f, _)| f.starts_with("invalid data")));
    }
}
