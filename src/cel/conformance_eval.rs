//! The CEL conformance suite's *evaluation* results (`value` and `eval_error` of
//! `../shared/cel-spec-tests`) through our parser, checker and interpreter, with the
//! tests' bindings. The parse-and-check half is `conformance.rs`; this half is the bar
//! for the interpreter that evaluates rules on custom resources.
//!
//! Skipped: tests that need protobuf messages or enums, that disable the checker (we
//! evaluate checked ASTs only), whose expected value is a protobuf object other than a
//! Duration or Timestamp, and files the Kubernetes environment does not enable.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::checker::{Declarations, NoTypes};
use super::conformance::{Tp, k8s_rejects, test_environment};
use super::env::{Env, KubeVersion};
use super::interp::{EvalError, eval};
use super::value::Val;

/// A conformance `Value` message as an interpreter value; `None` for protobuf
/// messages, enums and wrappers we do not model.
fn to_val(v: &Tp) -> Option<Val> {
    let (kind, x) = v.fields().first()?;
    Some(match kind.as_str() {
        "null_value" => Val::Null,
        "bool_value" => Val::Bool(x.str()? == "true"),
        "int64_value" => Val::Int(x.str()?.parse().ok()?),
        "uint64_value" => Val::Uint(x.str()?.parse().ok()?),
        "double_value" => Val::Double(parse_double(x.str()?)?),
        "string_value" => Val::str(x.str()?),
        "bytes_value" => Val::Bytes(Arc::from(x.raw()?)),
        "type_value" => Val::Type(x.str()?.to_string()),
        "list_value" => Val::list(x.all("values").map(to_val).collect::<Option<_>>()?),
        "map_value" => Val::Map(Arc::new(
            x.all("entries")
                .map(|e| Some((to_val(e.get("key")?)?, to_val(e.get("value")?)?)))
                .collect::<Option<_>>()?,
        )),
        "object_value" => {
            let (type_url, fields) = x.fields().first()?;
            let int = |name: &str| -> Option<i64> {
                fields.get(name).map_or(Some(0), |n| n.str()?.parse().ok())
            };
            match type_url.as_str() {
                "[type.googleapis.com/google.protobuf.Duration]" => {
                    Val::Duration(int("seconds")? * 1_000_000_000 + int("nanos")?)
                }
                "[type.googleapis.com/google.protobuf.Timestamp]" => {
                    Val::Timestamp(int("seconds")?, u32::try_from(int("nanos")?).ok()?, 0)
                }
                _ => return None,
            }
        }
        _ => return None,
    })
}

fn parse_double(s: &str) -> Option<f64> {
    match s.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        other => other.trim_end_matches('f').parse().ok(),
    }
}

/// Equal as the conformance suite compares results: same kind and value (doubles
/// bitwise-equal up to NaN), lists in order, maps as sets of entries.
fn same(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Uint(x), Val::Uint(y)) => x == y,
        (Val::Double(x), Val::Double(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Val::String(x), Val::String(y)) => x == y,
        (Val::Bytes(x), Val::Bytes(y)) => x == y,
        (Val::Type(x), Val::Type(y)) => x == y,
        (Val::Duration(x), Val::Duration(y)) => x == y,
        (Val::Timestamp(s, n, _), Val::Timestamp(t, m, _)) => s == t && n == m,
        (Val::Map(x), Val::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| same(k, k2) && same(v, v2)))
        }
        _ => match (a.list_items(), b.list_items()) {
            (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
            _ => false,
        },
    }
}

/// Why a test's expectation is not the Kubernetes server's answer.
const FORMATTER_V2: &str = "Kubernetes enables the strings library at version 2, whose \
    `format` is cel-go's pre-v4 formatter (`ext/formatting.go`: `×10⁰³`, quoted list \
    members, `%f`/`%e` on doubles only)";
const NO_BAD_PRESENCE_ERRORS: &str = "the conformance runner enables \
    `EnableErrorOnBadPresenceTest`; the Kubernetes environment does not, so a field \
    selected after `.?`/`[?]` on a scalar is absent";
const V026_SKIPS: &str = "cel-go v0.26 (the Kubernetes 1.35 CEL) skips this test in its \
    own conformance run: `indexOf` past the end is -1 since cel-go#1052";
const SCIENTIFIC_WIDTH: &str = "the Kubernetes formatter passes `%e`'s precision (6 by \
    default) to golang.org/x/text's printer as a width, which pads a shorter result such \
    as `NaN` with spaces before it";
const K8S_IP: &str = "the Kubernetes `ip()` rejects IPv4-mapped IPv6 addresses";
const DOTTED_VARIABLES: &str = "added to cel-spec after cel-go v0.26; Kubernetes never \
    declares dotted variable names";
const UNKNOWN_IN_V026: &str = "cel-go v0.26 fails this test (listed in its conformance \
    skips) with an answer the suite does not record";

/// Tests whose expected result is not the Kubernetes server's, with the reason. The
/// runner requires each of them to differ, so the list cannot go stale silently.
const KUBERNETES_DIFFERS: &[(&str, &str, &str)] = &[
    (
        "string_ext",
        "scientific notation formatting clause",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "default precision for fixed-point clause with int",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "default precision for fixed-point clause with uint",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "default precision for scientific notation",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "default precision for scientific notation with int",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "default precision for scientific notation with uint",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "positive infinity support for scientific notation",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "negative infinity support for scientific notation",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "NaN support for scientific notation",
        SCIENTIFIC_WIDTH,
    ),
    ("string_ext", "NaN support for decimal", FORMATTER_V2),
    (
        "string_ext",
        "positive infinity support for decimal",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "negative infinity support for decimal",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "positive infinity support for fixed-point",
        FORMATTER_V2,
    ),
    (
        "string_ext",
        "negative infinity support for fixed-point",
        FORMATTER_V2,
    ),
    ("string_ext", "list support for string", FORMATTER_V2),
    ("string_ext", "map support for string", FORMATTER_V2),
    ("string_ext", "map support (all key types)", FORMATTER_V2),
    (
        "string_ext",
        "dyntype support for scientific notation",
        FORMATTER_V2,
    ),
    ("string_ext", "dyntype NaN/infinity support", FORMATTER_V2),
    ("string_ext", "dyntype support for lists", FORMATTER_V2),
    ("string_ext", "dyntype support for maps", FORMATTER_V2),
    (
        "string_ext",
        "scientific notation formatting clause in a string variable",
        FORMATTER_V2,
    ),
    ("string_ext", "indexof_out_of_range", V026_SKIPS),
    ("string_ext", "lastindexof_out_of_range", V026_SKIPS),
    (
        "optionals",
        "map_null_entry_no_such_key",
        NO_BAD_PRESENCE_ERRORS,
    ),
    (
        "optionals",
        "map_present_key_invalid_field",
        NO_BAD_PRESENCE_ERRORS,
    ),
    ("network_ext", "ipv4_equals_ipv6", K8S_IP),
    ("network_ext", "ipv4_not_equals_ipv6", K8S_IP),
    (
        "namespace",
        "comprehension_shadowing_selector",
        DOTTED_VARIABLES,
    ),
];

/// Tests whose cel-go v0.26 answer is unknown: not run.
const NOT_RUN: &[(&str, &str, &str)] = &[("optionals", "map_optional_select_has", UNKNOWN_IN_V026)];

#[derive(Default)]
struct Tally {
    pass: usize,
    fail: usize,
    skip: usize,
    /// Tests in [`KUBERNETES_DIFFERS`] that differ as listed.
    differ: usize,
    failures: Vec<String>,
}

fn bindings(test: &Tp) -> Option<Vec<(String, Val)>> {
    test.all("bindings")
        .map(|b| {
            let name = b.get("key")?.str()?.to_string();
            let value = to_val(b.get("value")?.get("value")?)?;
            Some((name, value))
        })
        .collect()
}

fn run_test(env_base: &Env, test: &Tp, tally: &mut Tally, file: &str) {
    let name = test.get("name").and_then(Tp::str).unwrap_or("?");
    let Some(expr) = test.get("expr").and_then(Tp::str) else {
        tally.skip += 1;
        return;
    };
    let listed =
        |table: &[(&str, &str, &str)]| table.iter().any(|(f, n, _)| *f == file && *n == name);
    if listed(NOT_RUN) {
        tally.skip += 1;
        return;
    }
    let needs_proto = test.get("container").is_some()
        || format!("{test:?}").contains("message_type")
        || format!("{test:?}").contains("enum_value")
        || expr.contains("TestAllTypes")
        || expr.contains("google.protobuf")
        || expr.contains("cel.expr.conformance");
    let disable_check = test.get("disable_check").and_then(Tp::str) == Some("true");
    let expected_value = test.get("value").map(to_val);
    if matches!(expected_value, Some(None)) {
        tally.skip += 1;
        return;
    }
    let expects_error = test.get("eval_error").is_some();
    // A test without a result matcher expects `true` (cel-spec `SimpleTest`).
    let matchers = [
        "eval_error",
        "any_eval_errors",
        "unknown",
        "any_unknowns",
        "typed_result",
    ];
    let expected_value = match expected_value {
        None if !matchers.iter().any(|m| test.get(m).is_some()) => Some(Val::Bool(true)),
        v => v.flatten(),
    };
    if needs_proto
        || disable_check
        || k8s_rejects(file, expr)
        || (expected_value.is_none() && !expects_error)
    {
        tally.skip += 1;
        return;
    }
    let (Some((env, vars)), Some(bound)) = (test_environment(env_base, test), bindings(test))
    else {
        tally.skip += 1;
        return;
    };
    let decls = Declarations {
        env: &env,
        variables: &vars,
        provider: &NoTypes,
    };
    let checked = match super::parse_and_check(expr, &decls) {
        Ok(c) => c,
        // A check error where evaluation fails is the conformance result too (the
        // parse-and-check half verifies the texts).
        Err(_) if expects_error => {
            tally.pass += 1;
            return;
        }
        Err(issues) => {
            tally.fail += 1;
            let first = issues.display().lines().next().unwrap_or("").to_string();
            tally
                .failures
                .push(format!("{file}/{name}: `{expr}`: {first}"));
            return;
        }
    };
    let vars: Vec<(&str, Val)> = bound.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
    let (result, _) = eval(&checked, &vars, u64::MAX);
    let verdict = match (&result, &expected_value) {
        (Ok(got), Some(want)) if same(got, want) => None,
        (Err(EvalError::Message(_)), None) => None,
        (Ok(got), Some(want)) => Some(format!("got {got:?}, expected {want:?}")),
        (Ok(got), None) => Some(format!("got {got:?}, expected an error")),
        (Err(e), _) => Some(format!("error {e:?}, expected {expected_value:?}")),
    };
    if listed(KUBERNETES_DIFFERS) {
        match verdict {
            Some(_) => tally.differ += 1,
            None => {
                tally.fail += 1;
                tally.failures.push(format!(
                    "{file}/{name}: listed as a Kubernetes difference, but passes"
                ));
            }
        }
        return;
    }
    match verdict {
        None => tally.pass += 1,
        Some(why) => {
            tally.fail += 1;
            tally
                .failures
                .push(format!("{file}/{name}: `{expr}`: {why}"));
        }
    }
}

#[test]
fn conformance_evaluate() {
    let Some(suite) = super::conformance::suite_files() else {
        return;
    };
    let env = (*Env::for_server(KubeVersion::NEWEST)).clone();
    let mut files: BTreeMap<String, Tally> = BTreeMap::new();
    for (stem, root) in suite {
        let mut tally = Tally::default();
        for section in root.all("section") {
            for test in section.all("test") {
                run_test(&env, test, &mut tally, &stem);
            }
        }
        files.insert(stem, tally);
    }
    let (mut pass, mut fail, mut skip, mut differ) = (0, 0, 0, 0);
    for (file, t) in &files {
        eprintln!(
            "{file:>16}: {} pass, {} fail, {} Kubernetes differs, {} skipped",
            t.pass, t.fail, t.differ, t.skip
        );
        pass += t.pass;
        fail += t.fail;
        skip += t.skip;
        differ += t.differ;
    }
    for t in files.values() {
        for f in &t.failures {
            eprintln!("  FAIL {f}");
        }
    }
    eprintln!(
        "conformance (evaluate): {pass} pass, {fail} fail, {differ} Kubernetes differs, {skip} skipped"
    );
    assert_eq!(
        differ,
        KUBERNETES_DIFFERS.len(),
        "a listed Kubernetes difference was not run"
    );
    assert_eq!(fail, 0, "conformance evaluation failures (listed above)");
}
