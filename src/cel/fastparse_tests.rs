//! The fast path against the generated parser: hand-picked corners, then every rule
//! and messageExpression of the CRD fixtures, the shared corpus and the CEL
//! conformance suite, and the recorded syntax errors.

use std::path::{Path, PathBuf};

use super::compare_with_generated;
use crate::cel::parse::ParseOptions;
use crate::source::{Node, Value};

fn all_options() -> [ParseOptions; 3] {
    [
        ParseOptions::default(),
        ParseOptions {
            optional_syntax: false,
            two_var_comprehensions: false,
            sort_by: false,
        },
        ParseOptions {
            optional_syntax: true,
            two_var_comprehensions: false,
            sort_by: false,
        },
    ]
}

/// Asserts the fast path accepts `text` (`accept`) or declines it, and that whatever
/// it accepts equals the generated parser's tree.
fn check(text: &str, accept: bool) {
    for options in all_options() {
        match compare_with_generated(text, options) {
            Ok(accepted) => assert_eq!(accepted, accept, "{text:?} with {options:?}"),
            Err(diff) => panic!("{diff}"),
        }
    }
}

#[test]
fn accepts_the_grammar_with_the_same_trees() {
    for text in [
        "self.a",
        "self.a.b.c == 'x'",
        "a || b || c || d && e && f",
        "a || b || c || d || e || f || g",
        "a ? b : c ? d : e",
        "(a ? b : c) ? d : e",
        "1 + 2 * 3 - 4 / 5 % 6",
        "a < b == c != d >= e > f <= g",
        "x in [1, 2, 3] && 'a' in {'a': 1}",
        "!a",
        "!!a",
        "!!!a",
        "-a",
        "--a",
        "---a",
        "-1",
        "- 1",
        "-  1.5",
        "-0",
        "-0.0",
        "0.0",
        "a - 0",
        "a -0",
        "a - -0",
        "[-0, - 0]",
        "a - 1",
        "a-1",
        "1 - -1",
        "-1.abs()",
        "-x.y",
        "!-1",
        "-1u",
        "-9223372036854775808",
        "9223372036854775807",
        "-0x8000000000000000",
        "0x7fffffffffffffff",
        "0xFFu",
        "18446744073709551615u",
        "1U",
        "1e3",
        "1.5e-3",
        "-2.5E+10",
        ".5",
        "-.5",
        "1.e5",
        "1 in [1]",
        "1in[1]",
        "'a' + \"b\" + '''c\n''' + \"\"\"d\"\"\"",
        "r'a\\b' + R\"c\\d\" + r'''x\\y''' + r\"\"\"z\"\"\"",
        "b'abc' + B\"\\x00\\xff\\377\" + br'\\x' + bR'x'",
        "'\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\?\\`'",
        "'\\x41\\X42\\u00e9\\U0001F600\\101\\377'",
        "'é' == x && y",
        "\"日本語\".size() > 1",
        "'''a\r\nb\rc'''",
        "a.b(c)",
        "a.b(c, d)",
        "a.b()",
        "a.b.c(d).e[f]",
        "f(x)",
        "f()",
        ".a",
        ".a.b",
        ".f(x)",
        "a.b{c: 1}",
        "a.b.C{}",
        ".a.b.C{x: 1, y: [2],}",
        "A{}",
        "[1, 2,]",
        "{'a': 1, 'b': 2,}",
        "[]",
        "{}",
        "[[[1]]]",
        "{1: {2: {3: 'x'}}}",
        "has(self.a)",
        "has(self.a.b)",
        "self.l.all(x, x > 0)",
        "self.l.exists(x, x > 0)",
        "self.l.exists_one(x, x > 0)",
        "self.l.existsOne(x, x > 0)",
        "self.l.map(x, x * 2)",
        "self.l.map(x, x > 0, x * 2)",
        "self.l.filter(x, x > 0)",
        "self.m.all(k, v, v > 0)",
        "self.m.exists(k, v, k == v)",
        "self.m.existsOne(k, v, k == v)",
        "self.l.transformList(i, v, v * 2)",
        "self.l.transformList(i, v, i > 0, v * 2)",
        "self.m.transformMap(k, v, v + 1)",
        "self.m.transformMapEntry(k, v, {k: v})",
        "[3, 1].sortBy(x, -x)",
        "self.l.all(x, self.l.exists(y, y == x)) && self.l.map(z, z).size() > 0",
        "a // comment\n + b",
        "  a\t\n==\x0cb  ",
        "1 + // x\n -1",
        "x.all(y, [1].exists(z, z == y))",
        "a.b.c.d.e.f.g.h",
        "a[0][1]['x']",
        "size(a) + a.size()",
        "type(1) == int",
        "self.a.startsWith('x') ? self.b : self.c",
        "true && false || null == null",
        "inx + in_ + trueish + nullable",
        "_a1 + A_b",
    ] {
        check(text, true);
    }
}

#[test]
fn optional_syntax_follows_the_options() {
    let on = ParseOptions::default();
    let off = ParseOptions {
        optional_syntax: false,
        ..ParseOptions::default()
    };
    for text in [
        "a.?b",
        "a.?b.?c.orValue(1)",
        "a[?0]",
        "[?a, b, ?c]",
        "{?'a': x, 'b': y}",
        "A{?f: 1}",
        "a . ? b",
    ] {
        assert_eq!(compare_with_generated(text, on), Ok(true), "{text}");
        assert_eq!(compare_with_generated(text, off), Ok(false), "{text}");
    }
}

#[test]
fn declines_errors_and_unusual_forms() {
    for text in [
        "",
        " ",
        "a +",
        "a = b",
        "a & b",
        "(a",
        "a)",
        "f(1,)",
        "[,]",
        "{,}",
        "--1",
        "- -1",
        "!-x",
        "-!x",
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616u",
        "1e999",
        "-1e999",
        "0x",
        "1.5u",
        "'abc",
        "'a\nb'",
        "'\\q'",
        "'\\ud800'",
        "b'\\u0041'",
        "'''abc",
        "''''",
        "a.`b`",
        "a.true",
        "if",
        "if(x)",
        "x.all(1, true)",
        "has(x)",
        "x.map(1, 2)",
        "a ? b",
        "a b",
        "1 2",
        "a.5",
        "@a",
        "a.b(c)(d)",
        "é",
    ] {
        check(text, false);
    }
    // Reserved words are fine as fields and member functions.
    check("a.if + a.while()", true);
    // Without optional syntax these are plain calls.
    check(
        "x.optMap(y, y + 1) == x.optFlatMap(y, optional.of(y))",
        true,
    );
}

#[test]
fn deep_nesting_declines() {
    let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    assert_eq!(
        compare_with_generated(&deep, ParseOptions::default()),
        Ok(false)
    );
    let ok = format!("{}1{}", "[".repeat(40), "]".repeat(40));
    assert_eq!(
        compare_with_generated(&ok, ParseOptions::default()),
        Ok(true)
    );
    let long = vec!["a"; 300].join(" + ");
    assert_eq!(
        compare_with_generated(&long, ParseOptions::default()),
        Ok(false)
    );
    let wide = vec!["a"; 300].join(" || ");
    assert_eq!(
        compare_with_generated(&wide, ParseOptions::default()),
        Ok(true)
    );
}

/// Every `rule` and `messageExpression` of `x-kubernetes-validations` in `node`.
fn collect_rules(node: &Node, out: &mut Vec<String>) {
    match &node.value {
        Value::Object(m) => {
            for (k, v) in m.iter() {
                if k == "x-kubernetes-validations"
                    && let Some(items) = v.as_array()
                {
                    for item in items {
                        for key in ["rule", "messageExpression"] {
                            if let Some(s) = item.get(key).and_then(Node::as_str) {
                                out.push(s.to_string());
                            }
                        }
                    }
                }
                collect_rules(v, out);
            }
        }
        Value::Array(items) => {
            for i in items {
                collect_rules(i, out);
            }
        }
        _ => {}
    }
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        {
            out.push(p);
        }
    }
}

fn rules_under(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    yaml_files(dir, &mut files);
    let mut rules = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for doc in crate::source::yaml::parse(&text, &Default::default()).documents {
            collect_rules(&doc.root, &mut rules);
        }
    }
    rules
}

/// Compares both parsers on every text; returns (accepted, total) and panics with
/// every difference.
fn differential(name: &str, texts: &[String]) -> (usize, usize) {
    let mut accepted = 0;
    let mut diffs = Vec::new();
    let mut declined = Vec::new();
    for t in texts {
        match compare_with_generated(t, ParseOptions::default()) {
            Ok(true) => accepted += 1,
            Ok(false) => {
                if crate::cel::parse::parse_with_generated_parser(t, ParseOptions::default())
                    .is_ok()
                {
                    declined.push(t.as_str());
                }
            }
            Err(d) => diffs.push(d),
        }
    }
    eprintln!(
        "{name}: fast path accepted {accepted} of {} texts ({:.1}%); {} valid ones declined",
        texts.len(),
        accepted as f64 * 100.0 / texts.len().max(1) as f64,
        declined.len()
    );
    for d in declined.iter().take(20) {
        eprintln!("  declined valid: {d:?}");
    }
    assert!(
        diffs.is_empty(),
        "{name}: {} differ:\n{}",
        diffs.len(),
        diffs.join("\n\n")
    );
    (accepted, texts.len())
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn fixtures_parse_the_same() {
    let rules = rules_under(&repo().join("testdata"));
    assert!(rules.len() > 300, "{}", rules.len());
    let (accepted, total) = differential("testdata", &rules);
    assert!(accepted * 10 > total * 9, "{accepted} of {total}");
}

#[test]
fn corpus_parses_the_same() {
    let Some(dir) = crate::cel::conformance::shared_dir("corpus") else {
        eprintln!("SKIPPED: ../shared/corpus not found");
        return;
    };
    let rules = rules_under(&dir);
    assert!(!rules.is_empty());
    let (accepted, total) = differential("corpus", &rules);
    let valid = rules
        .iter()
        .filter(|r| {
            crate::cel::parse::parse_with_generated_parser(r, ParseOptions::default()).is_ok()
        })
        .count();
    eprintln!("corpus: {accepted} of {valid} valid rules take the fast path");
    assert!(
        accepted * 100 >= valid * 99,
        "{accepted} of {valid} ({total} texts)"
    );
}

#[test]
fn conformance_expressions_parse_the_same() {
    let Some(dir) = crate::cel::conformance::shared_dir("cel-spec-tests") else {
        eprintln!("SKIPPED: ../shared/cel-spec-tests not found");
        return;
    };
    let mut texts = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "textproto"))
        .collect();
    files.sort();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        crate::cel::conformance::expressions(&text, &mut texts);
    }
    assert!(texts.len() > 1000, "{}", texts.len());
    differential("conformance", &texts);
}

#[test]
fn syntax_errors_are_declined() {
    let text = include_str!("../../testdata/cel/syntax_errors.txt");
    let rules: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("RULE: "))
        .map(str::to_string)
        .collect();
    assert!(rules.len() > 150, "{}", rules.len());
    let mut accepted = Vec::new();
    for r in &rules {
        if let Ok(true) = compare_with_generated(r, ParseOptions::default()) {
            accepted.push(r.as_str());
        }
    }
    differential("syntax_errors.txt", &rules);
    eprintln!("syntax_errors.txt: accepted (identical trees): {accepted:?}");
}

/// Deterministic mutations of the fixtures' rules (characters deleted, doubled or
/// inserted from CEL's punctuation): whatever the fast path accepts must equal the
/// generated parser's tree.
#[test]
fn mutated_rules_parse_the_same() {
    let rules = rules_under(&repo().join("testdata/crd"));
    assert!(!rules.is_empty());
    const PIECES: &[&str] = &[
        "-", "!", "?", ".", "[", "]", "{", "}", "(", ")", ",", ":", "'", "\"", "\\", "r", "b", "u",
        "0x", "1", ".5", "e", " ", "\n", "\r", "'''", "?.", "[?", "in", "//", "é", "0", "-1",
        "has(", "all(x, ", "`", "\\x4", "\\u00", "&&", "||", "==",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut texts = Vec::new();
    for _ in 0..1500 {
        let mut t = rules[next(rules.len())].clone();
        for _ in 0..1 + next(3) {
            let mut at = next(t.len() + 1);
            while !t.is_char_boundary(at) {
                at -= 1;
            }
            match next(3) {
                0 => {
                    let mut end = (at + 1 + next(3)).min(t.len());
                    while !t.is_char_boundary(end) {
                        end += 1;
                    }
                    t.replace_range(at..end, "");
                }
                _ => t.insert_str(at, PIECES[next(PIECES.len())]),
            }
        }
        texts.push(t);
    }
    for options in all_options() {
        for t in &texts {
            if let Err(d) = compare_with_generated(t, options) {
                panic!("{d}");
            }
        }
    }
    differential("mutated fixtures", &texts);
}

/// The generated lexer's `.` (only in raw triple-quoted strings) matches neither
/// U+0000 nor U+10FFFF (found by the cel_rule fuzzer); its other sets do.
#[test]
fn raw_triple_quoted_strings_follow_the_generated_lexer() {
    for text in ["r'''a\u{0}b'''", "r'''\u{10ffff}'''", "br'''\u{0}'''"] {
        check(text, false);
    }
    for text in [
        "'''a\u{0}b'''",
        "'a\u{0}b'",
        "r'a\u{0}b'",
        "r'''😀'''",
        "r'''\u{ffff}'''",
        "r'''\u{7f}\u{80}\u{1}'''",
        "a // \u{0}\n + b",
        "r'''\u{fffe}'''",
        "'''\u{10ffff}'''",
        "'\u{10ffff}'",
        "r'\u{10ffff}'",
        "a // \u{10ffff}\n + b",
        "b'''\u{10ffff}'''",
        "R\"\"\"\u{10fffe}\"\"\"",
    ] {
        check(text, true);
    }
}
