//! The runtime cost of evaluating a rule, as cel-go's `CostTracker` counts it
//! (`interpreter/runtimecost.go`) with the Kubernetes library's `CallCost`
//! (apiserver `pkg/cel/library/cost.go`) and the `ext` lists/sets trackers, and the
//! server's limits on it: [`PER_CALL_LIMIT`] per evaluation and
//! [`RUNTIME_CEL_COST_BUDGET`] for all rules of one object.
//!
//! The interpreter (`cel::interp`, which knows which nodes cel-go's observer sees)
//! adds [`node_cost`] for list and map literals and [`call_cost`] for every function
//! call (with the evaluated arguments, target first, and the result), and stops with
//! [`COST_LIMIT_EXCEEDED`] once the sum passes the per-call limit; `cel::eval` charges
//! each evaluation to the per-object budget as the apiextensions validator does. Values
//! are seen through [`CostValue`], so this module does not depend on the interpreter's
//! value type. `testdata/cel/runtime-cost/` pins the result against the server.

use super::estimator::multiply_by_cost_factor;

/// `celconfig.PerCallLimit`: the most one evaluation of a rule may cost.
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// `celconfig.RuntimeCELCostBudget`: the most all rules of one object may cost.
pub const RUNTIME_CEL_COST_BUDGET: i64 = 10_000_000;
/// The error of an evaluation stopped by the per-call limit.
pub const COST_LIMIT_EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";
/// The server's error once the per-object budget is spent.
pub const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";
/// The same for a messageExpression.
pub const MESSAGE_EXPRESSION_OUT_OF_BUDGET: &str = "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run";

const STRING_TRAVERSAL: f64 = 0.1;
const REGEX_LENGTH: f64 = 0.25;
const LIST_CREATE: u64 = 10;
const MAP_CREATE: u64 = 30;
const STRUCT_CREATE: u64 = 40;

/// What the cost of a call needs to know about a value.
pub trait CostValue {
    /// `traits.Sizer`: characters of a string, bytes, list items, map entries;
    /// `None` for values without a size.
    fn sizer(&self) -> Option<u64>;
    /// The value inside an optional that has one.
    fn optional_value(&self) -> Option<&Self>;
    /// Whether this is a string or bytes value.
    fn is_string_or_bytes(&self) -> bool;
    /// The first element of a list.
    fn first_element(&self) -> Option<&Self>;
    /// `traversalCost` (apiserver library): strings and bytes cost a tenth of their
    /// byte length (truncated), lists the sum of their items, maps and objects the sum
    /// of keys and values, anything else 1.
    fn traversal_cost(&self) -> u64;
    /// Kubernetes types whose `==` costs 1 (Quantity, IP, CIDR, Format, URL, Semver,
    /// authorization types).
    fn is_unit_equality_type(&self) -> bool;
    /// `MaxRegexSize` of a named format value.
    fn format_max_regex_size(&self) -> Option<u64>;
    /// The value of an int.
    fn int_value(&self) -> Option<i64> {
        None
    }
}

/// The cost of evaluating one node (besides calls): identifiers and field selections
/// cost 1, presence tests (`has()`) 0, list, map and object literals 10, 30 and 40,
/// literals and the operators `&&`, `||`, `?:` nothing of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Literal,
    Ident,
    Select,
    PresenceTest,
    Index,
    List,
    Map,
    Struct,
    LogicalOrConditional,
}

pub fn node_cost(kind: NodeKind) -> u64 {
    match kind {
        NodeKind::Literal | NodeKind::PresenceTest | NodeKind::LogicalOrConditional => 0,
        NodeKind::Ident | NodeKind::Select | NodeKind::Index => 1,
        NodeKind::List => LIST_CREATE,
        NodeKind::Map => MAP_CREATE,
        NodeKind::Struct => STRUCT_CREATE,
    }
}

/// The interpreter's `actualSize`: the size, or the size of an optional's value, else 1.
fn actual_size<V: CostValue + ?Sized>(v: &V) -> u64 {
    if let Some(s) = v.sizer() {
        return s;
    }
    if let Some(inner) = v.optional_value() {
        return actual_size(inner);
    }
    1
}

/// The libraries' `actualSize` (no optional unwrapping).
fn lib_size<V: CostValue + ?Sized>(v: &V) -> u64 {
    v.sizer().unwrap_or(1)
}

fn ceil_mul(x: u64, f: f64) -> u64 {
    multiply_by_cost_factor(x, f)
}

/// The cost of one call (`CostTracker.costCall`): `args` are the evaluated
/// arguments with a member call's target first.
pub fn call_cost<V: CostValue + ?Sized>(
    function: &str,
    overload: &str,
    args: &[&V],
    result: &V,
) -> u64 {
    if let Some(c) = ext_tracker(overload, args, result) {
        return c;
    }
    if let Some(c) = k8s_call_cost(function, overload, args, result) {
        return c;
    }
    let arg = |i: usize| args.get(i).map(|a| actual_size(*a)).unwrap_or(1);
    match overload {
        "starts_with_string" | "ends_with_string" | "string_to_bytes" | "bytes_to_string"
        | "strings_quote" | "string_format" => ceil_mul(arg(0), STRING_TRAVERSAL),
        "in_list" => arg(1),
        "less_string"
        | "greater_string"
        | "less_equals_string"
        | "greater_equals_string"
        | "less_bytes"
        | "greater_bytes"
        | "less_equals_bytes"
        | "greater_equals_bytes"
        | "equals"
        | "not_equals" => ceil_mul(arg(0).min(arg(1)), STRING_TRAVERSAL),
        "add_string" | "add_bytes" => ceil_mul(arg(0).saturating_add(arg(1)), STRING_TRAVERSAL),
        "matches_string" => {
            let s = ((1.0 + arg(0) as f64) * STRING_TRAVERSAL).ceil() as u64;
            let r = ceil_mul(arg(1), REGEX_LENGTH);
            s.saturating_mul(r)
        }
        "contains_string" => {
            ceil_mul(arg(0), STRING_TRAVERSAL).saturating_mul(ceil_mul(arg(1), STRING_TRAVERSAL))
        }
        _ => 1,
    }
}

/// Go's `uint64(f)` on amd64 for the integral values cost trackers compute: a
/// negative value keeps its two's-complement bits (`uint64(-3.0)` is 2^64 - 3).
fn go_float_to_uint64(f: f64) -> u64 {
    if f < 9_223_372_036_854_775_808.0 {
        (f as i64) as u64
    } else {
        ((f - 9_223_372_036_854_775_808.0) as i64 as u64) ^ (1 << 63)
    }
}

/// What `lists.range(n)` costs (its tracker's allocation of the n-element result).
pub fn lists_range_cost(n: u64) -> u64 {
    n.saturating_add(1 + LIST_CREATE)
}

/// The `ext` lists (v3) and sets runtime trackers.
fn ext_tracker<V: CostValue + ?Sized>(overload: &str, args: &[&V], result: &V) -> Option<u64> {
    let alloc = |factor: f64, size: u64| (size as f64 * factor) as u64 + 1 + LIST_CREATE;
    let self_compare = |l: &V| {
        let sz = lib_size(l);
        let mut factor = 2.0;
        if sz == 0 {
            return alloc(factor, 0);
        }
        if l.first_element().is_some_and(|e| e.is_string_or_bytes()) {
            factor += STRING_TRAVERSAL;
        }
        alloc(factor, sz.saturating_mul(sz))
    };
    match overload {
        "list_slice" | "lists_range" | "list_reverse" => Some(alloc(1.0, lib_size(result))),
        "list_flatten" | "list_flatten_int" => {
            // `trackListFlatten`: the size times the depth asked for (1 unless given),
            // in Go's unsigned arithmetic: a negative depth (which the call refuses)
            // wraps, so a list of up to 11 items costs less than nothing extra and a
            // longer one exhausts any budget.
            let depth = match args.get(1) {
                Some(d) => d.int_value().unwrap_or(1) as f64,
                None => 1.0,
            };
            let allocated = go_float_to_uint64(lib_size(*args.first()?) as f64 * depth);
            Some(allocated.wrapping_add(1 + LIST_CREATE))
        }
        "list_distinct" => Some(self_compare(args.first()?)),
        o if o.starts_with("list_") && o.ends_with("_sortByAssociatedKeys") => {
            Some(self_compare(args.get(1)?))
        }
        o if o.starts_with("list_") && o.ends_with("_sort") => Some(self_compare(args.first()?)),
        "list_sets_contains_list" | "list_sets_intersects_list" | "list_sets_equivalent_list" => {
            let factor = if overload == "list_sets_equivalent_list" {
                2.0
            } else {
                1.0
            };
            let (a, b) = (lib_size(*args.first()?), lib_size(*args.get(1)?));
            Some(1 + (a.saturating_mul(b) as f64 * factor) as u64)
        }
        _ => None,
    }
}

/// `library.CostEstimator.CallCost`, by function name.
fn k8s_call_cost<V: CostValue + ?Sized>(
    function: &str,
    overload: &str,
    args: &[&V],
    result: &V,
) -> Option<u64> {
    let size = |i: usize| args.get(i).map(|a| lib_size(*a));
    let tf = STRING_TRAVERSAL;
    match function {
        "check" => Some(350_000),
        "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace" | "name"
        | "allowed" | "reason" | "error" | "errored" => Some(1),
        "fieldSelector" | "labelSelector" => {
            let len = size(1)?;
            let parse = ceil_mul(len, tf);
            let reqs = ceil_mul(len, 0.5);
            Some(LIST_CREATE + parse + ceil_mul(reqs, (LIST_CREATE + STRUCT_CREATE) as f64))
        }
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
            Some(args.first().map(|a| a.traversal_cost()).unwrap_or(0))
        }
        "url" | "lowerAscii" | "upperAscii" | "substring" | "trim" | "jsonpatch.escapeKey" => {
            Some(ceil_mul(size(0)?, tf))
        }
        "replace" | "split" => Some(ceil_mul(size(0)?, 2.0 * tf)),
        "join" => {
            args.first()?;
            Some(ceil_mul(lib_size(result), 2.0 * tf))
        }
        "find" | "findAll" => {
            let s = ((1.0 + size(0)? as f64) * tf).ceil() as u64;
            let r = ceil_mul(size(1)?, REGEX_LENGTH);
            Some(s.saturating_mul(r))
        }
        "cidr" | "isIP" | "isCIDR" => Some(ceil_mul(size(0)?, tf)),
        "ip" => {
            args.first()?;
            if overload == "cidr_ip" {
                Some(1)
            } else {
                Some(ceil_mul(size(0)?, tf))
            }
        }
        "ip.isCanonical" => Some(ceil_mul(size(0)?, 2.0 * tf)),
        "masked"
        | "prefixLength"
        | "family"
        | "isUnspecified"
        | "isLoopback"
        | "isLinkLocalMulticast"
        | "isLinkLocalUnicast"
        | "isGlobalUnicast" => Some(1),
        "containsIP" | "containsCIDR" => {
            let cidr = size(0)?;
            let other = size(1)?;
            let mut c = ceil_mul(cidr.saturating_mul(2), tf);
            if function == "containsCIDR" {
                c += ceil_mul(cidr, tf) + 1;
            }
            if overload == "cidr_contains_ip_string" || overload == "cidr_contains_cidr_string" {
                c += ceil_mul(other, tf);
            }
            Some(c)
        }
        "quantity" | "isQuantity" | "semver" | "isSemver" => Some(ceil_mul(size(0)?, tf)),
        "validate" => {
            let regex = args.first()?.format_max_regex_size()?;
            let s = ((1.0 + size(1)? as f64) * tf).ceil() as u64;
            Some(s.saturating_mul(ceil_mul(regex, REGEX_LENGTH)))
        }
        "format.named" => Some(1),
        "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
        | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => Some(1),
        "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
            Some(1)
        }
        "_==_" if args.len() == 2 && args[0].is_unit_equality_type() => Some(1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value for tests: a string, a list, or something without a size.
    enum T {
        S(&'static str),
        L(Vec<T>),
        Q,
        F(u64),
        N,
    }

    impl CostValue for T {
        fn sizer(&self) -> Option<u64> {
            match self {
                T::S(s) => Some(s.chars().count() as u64),
                T::L(l) => Some(l.len() as u64),
                _ => None,
            }
        }
        fn optional_value(&self) -> Option<&Self> {
            None
        }
        fn is_string_or_bytes(&self) -> bool {
            matches!(self, T::S(_))
        }
        fn first_element(&self) -> Option<&Self> {
            match self {
                T::L(l) => l.first(),
                _ => None,
            }
        }
        fn traversal_cost(&self) -> u64 {
            match self {
                T::S(s) => (s.len() as f64 * 0.1) as u64,
                T::L(l) => l.iter().map(T::traversal_cost).sum(),
                _ => 1,
            }
        }
        fn is_unit_equality_type(&self) -> bool {
            matches!(self, T::Q)
        }
        fn format_max_regex_size(&self) -> Option<u64> {
            match self {
                T::F(n) => Some(*n),
                _ => None,
            }
        }
    }

    fn cost(f: &str, o: &str, args: &[&T], r: &T) -> u64 {
        call_cost(f, o, args, r)
    }

    #[test]
    fn call_costs_as_cel_go_counts_them() {
        let long = T::S("abcdefghijklmnopqrstuvwxyz");
        let sub = T::S("xyz");
        assert_eq!(
            cost("contains", "contains_string", &[&long, &sub], &T::N),
            3
        );
        assert_eq!(cost("matches", "matches_string", &[&long, &sub], &T::N), 3);
        assert_eq!(
            cost("startsWith", "starts_with_string", &[&long, &sub], &T::N),
            3
        );
        assert_eq!(cost("_==_", "equals", &[&long, &sub], &T::N), 1);
        assert_eq!(cost("_==_", "equals", &[&T::Q, &T::Q], &T::N), 1);
        assert_eq!(cost("_+_", "add_string", &[&long, &sub], &T::N), 3);
        assert_eq!(cost("_+_", "add_int64", &[&T::N, &T::N], &T::N), 1);
        let list = T::L(vec![T::S("aaaaaaaaaaaa"), T::S("bbbbbbbbbbbbbbbbbbbbb")]);
        assert_eq!(cost("@in", "in_list", &[&sub, &list], &T::N), 2);
        assert_eq!(
            cost("isSorted", "list_string_is_sorted_bool", &[&list], &T::N),
            3
        );
        assert_eq!(cost("lowerAscii", "string_lower_ascii", &[&long], &T::N), 3);
        assert_eq!(
            cost("split", "string_split_string", &[&long, &sub], &T::N),
            6
        );
        assert_eq!(cost("join", "list_join", &[&list], &long), 6);
        assert_eq!(cost("find", "string_find_string", &[&long, &sub], &T::N), 3);
        assert_eq!(cost("sort", "list_string_sort", &[&list], &T::N), 8 + 11);
        assert_eq!(
            cost("distinct", "list_distinct", &[&T::L(vec![])], &T::N),
            11
        );
        assert_eq!(
            cost(
                "sets.contains",
                "list_sets_contains_list",
                &[&list, &list],
                &T::N
            ),
            5
        );
        assert_eq!(
            cost("validate", "format_validate", &[&T::F(40), &long], &T::N),
            30
        );
        assert_eq!(cost("size", "string_size", &[&long], &T::N), 1);
    }
}
