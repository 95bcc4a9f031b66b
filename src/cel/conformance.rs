//! The CEL conformance suite (`../shared/cel-spec-tests`, google/cel-spec
//! `tests/simple/testdata`) run through our parser and checker: every test that can be
//! type-checked without protobuf messages must check, and `typed_result` tests must
//! deduce the expected type. Prints a pass rate per file and the failures.

use std::collections::BTreeMap;
use std::path::Path;

use super::checker::{Declarations, NoTypes};
use super::env::{Env, Function, KubeVersion, Overload};
use super::types::Type;

/// A protobuf text-format value.
#[derive(Clone, Debug)]
pub(super) enum Tp {
    Scalar(String),
    /// A quoted string's bytes (a `bytes_value` need not be UTF-8).
    Str(Vec<u8>),
    Msg(Vec<(String, Tp)>),
}

impl Tp {
    pub(super) fn fields(&self) -> &[(String, Tp)] {
        match self {
            Tp::Msg(f) => f,
            _ => &[],
        }
    }
    pub(super) fn get(&self, name: &str) -> Option<&Tp> {
        self.fields()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }
    pub(super) fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Tp> + 'a {
        self.fields()
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v)
    }
    /// A quoted string's bytes.
    pub(super) fn raw(&self) -> Option<&[u8]> {
        match self {
            Tp::Str(b) => Some(b),
            _ => None,
        }
    }
    pub(super) fn str(&self) -> Option<&str> {
        match self {
            Tp::Str(b) => std::str::from_utf8(b).ok(),
            Tp::Scalar(s) => Some(s),
            _ => None,
        }
    }
}

struct TpParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl TpParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() {
            match self.s[self.i] {
                b' ' | b'\n' | b'\t' | b'\r' | b',' | b';' => self.i += 1,
                b'#' => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn message(&mut self, close: Option<u8>) -> Vec<(String, Tp)> {
        let mut out = Vec::new();
        loop {
            self.ws();
            if self.i >= self.s.len() {
                return out;
            }
            if Some(self.s[self.i]) == close {
                self.i += 1;
                return out;
            }
            let name = if self.s[self.i] == b'[' {
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i] != b']' {
                    self.i += 1;
                }
                self.i += 1;
                String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
            } else {
                let start = self.i;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
                {
                    self.i += 1;
                }
                if start == self.i {
                    self.i += 1;
                    continue;
                }
                String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
            };
            self.ws();
            if self.i < self.s.len() && self.s[self.i] == b':' {
                self.i += 1;
                self.ws();
            }
            let value = self.value();
            out.push((name, value));
        }
    }

    fn value(&mut self) -> Tp {
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                Tp::Msg(self.message(Some(b'}')))
            }
            Some(b'<') => {
                self.i += 1;
                Tp::Msg(self.message(Some(b'>')))
            }
            Some(b'"') | Some(b'\'') => {
                let mut bytes = Vec::new();
                while let Some(&q) = self.s.get(self.i) {
                    if q != b'"' && q != b'\'' {
                        break;
                    }
                    self.i += 1;
                    while self.i < self.s.len() && self.s[self.i] != q {
                        if self.s[self.i] == b'\\' {
                            self.i += 1;
                            let c = self.s.get(self.i).copied().unwrap_or(b'\\');
                            match c {
                                b'n' => bytes.push(b'\n'),
                                b't' => bytes.push(b'\t'),
                                b'r' => bytes.push(b'\r'),
                                b'a' => bytes.push(7),
                                b'b' => bytes.push(8),
                                b'f' => bytes.push(12),
                                b'v' => bytes.push(11),
                                b'x' => {
                                    let mut v = 0u32;
                                    let mut n = 0;
                                    while n < 2
                                        && self
                                            .s
                                            .get(self.i + 1)
                                            .is_some_and(|c| c.is_ascii_hexdigit())
                                    {
                                        self.i += 1;
                                        v = v * 16
                                            + (self.s[self.i] as char).to_digit(16).unwrap_or(0);
                                        n += 1;
                                    }
                                    bytes.push(v as u8);
                                }
                                b'0'..=b'7' => {
                                    let mut v = (c - b'0') as u32;
                                    let mut n = 1;
                                    while n < 3
                                        && self
                                            .s
                                            .get(self.i + 1)
                                            .is_some_and(|c| (b'0'..=b'7').contains(c))
                                    {
                                        self.i += 1;
                                        v = v * 8 + (self.s[self.i] - b'0') as u32;
                                        n += 1;
                                    }
                                    bytes.push(v as u8);
                                }
                                b'u' | b'U' => {
                                    let digits = if c == b'u' { 4 } else { 8 };
                                    let hex = self.s.get(self.i + 1..self.i + 1 + digits);
                                    let ch = hex
                                        .and_then(|h| std::str::from_utf8(h).ok())
                                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                                        .and_then(char::from_u32);
                                    match ch {
                                        Some(ch) => {
                                            let mut buf = [0; 4];
                                            bytes.extend(ch.encode_utf8(&mut buf).as_bytes());
                                            self.i += digits;
                                        }
                                        None => bytes.push(c),
                                    }
                                }
                                other => bytes.push(other),
                            }
                            self.i += 1;
                        } else {
                            bytes.push(self.s[self.i]);
                            self.i += 1;
                        }
                    }
                    self.i += 1;
                    self.ws_no_comma();
                }
                Tp::Str(bytes)
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len()
                    && !matches!(
                        self.s[self.i],
                        b' ' | b'\n' | b'\t' | b'\r' | b',' | b';' | b'}' | b'>' | b'#'
                    )
                {
                    self.i += 1;
                }
                Tp::Scalar(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
            }
        }
    }

    fn ws_no_comma(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\n' | b'\t' | b'\r') {
            self.i += 1;
        }
    }
}

pub(super) fn parse_textproto(text: &str) -> Tp {
    let mut p = TpParser {
        s: text.as_bytes(),
        i: 0,
    };
    Tp::Msg(p.message(None))
}

/// A `cel.expr.Type` message as one of our types; `None` for protobuf messages.
fn to_type(t: &Tp) -> Option<Type> {
    let (name, v) = t.fields().first()?;
    Some(match name.as_str() {
        "primitive" => match v.str()? {
            "BOOL" => Type::Bool,
            "INT64" => Type::Int,
            "UINT64" => Type::Uint,
            "DOUBLE" => Type::Double,
            "STRING" => Type::String,
            "BYTES" => Type::Bytes,
            _ => return None,
        },
        "null" => Type::Null,
        "dyn" => Type::Dyn,
        "error" => Type::Error,
        "type_param" => Type::TypeParam(v.str()?.to_string()),
        "list_type" => Type::list(to_type(v.get("elem_type")?)?),
        "map_type" => Type::map(to_type(v.get("key_type")?)?, to_type(v.get("value_type")?)?),
        "well_known" => match v.str()? {
            "TIMESTAMP" => Type::Timestamp,
            "DURATION" => Type::Duration,
            "ANY" => Type::Any,
            _ => return None,
        },
        "type" => match v.fields().is_empty() {
            true => Type::Type(None),
            false => Type::type_of(to_type(v)?),
        },
        "abstract_type" => Type::Opaque(
            v.get("name")?.str()?.to_string(),
            v.all("parameter_types")
                .map(to_type)
                .collect::<Option<Vec<_>>>()?,
        ),
        _ => return None,
    })
}

/// Files whose libraries the Kubernetes environment does not enable, or that need
/// protobuf messages throughout.
pub(super) const SKIPPED_FILES: &[&str] = &[
    "bindings_ext",
    "block_ext",
    "encoders_ext",
    "math_ext",
    "proto2",
    "proto2_ext",
    "proto3",
    "enums",
    "wrappers",
    "unknowns",
];

/// Tests the Kubernetes environment must fail, because the server does not enable
/// the feature they use (backtick-escaped fields; strings extension version 3).
pub(super) fn k8s_rejects(file: &str, expr: &str) -> bool {
    (file == "fields" && expr.contains('`'))
        || (file == "string_ext" && expr.contains(".reverse()"))
}

#[derive(Default)]
struct Tally {
    pass: usize,
    fail: usize,
    skip: usize,
    failures: Vec<String>,
}

fn run_test(env_base: &Env, test: &Tp, tally: &mut Tally, file: &str) {
    let name = test.get("name").and_then(Tp::str).unwrap_or("?");
    let Some(expr) = test.get("expr").and_then(Tp::str) else {
        tally.skip += 1;
        return;
    };
    let disable_check = test.get("disable_check").and_then(Tp::str) == Some("true");
    let needs_proto = test.get("container").is_some()
        || format!("{test:?}").contains("message_type")
        || expr.contains("TestAllTypes")
        || expr.contains("google.protobuf")
        || expr.contains("cel.expr.conformance");
    if disable_check || needs_proto {
        tally.skip += 1;
        return;
    }
    if k8s_rejects(file, expr) {
        let env = env_base.clone();
        let decls = Declarations {
            env: &env,
            variables: &[],
            provider: &NoTypes,
        };
        if super::parse_and_check(expr, &decls).is_ok() {
            tally.fail += 1;
            tally.failures.push(format!(
                "{file}/{name}: `{expr}`: accepted, but the server rejects it"
            ));
        } else {
            tally.pass += 1;
        }
        return;
    }
    let Some((env, vars)) = test_environment(env_base, test) else {
        tally.skip += 1;
        return;
    };
    let decls = Declarations {
        env: &env,
        variables: &vars,
        provider: &NoTypes,
    };
    let expected_type = test
        .get("typed_result")
        .and_then(|r| r.get("deduced_type"))
        .map(to_type);
    let expected_errors: Vec<&str> = test
        .get("eval_error")
        .map(|e| {
            e.all("errors")
                .filter_map(|x| x.get("message").and_then(Tp::str))
                .collect()
        })
        .unwrap_or_default();
    let expects_check_error = expected_errors.iter().any(|m| {
        m.starts_with("found no matching overload") || m.starts_with("undeclared reference")
    });
    match super::parse_and_check(expr, &decls) {
        Ok(_) if expects_check_error => {
            tally.fail += 1;
            tally.failures.push(format!(
                "{file}/{name}: `{expr}`: checked, expected {expected_errors:?}"
            ));
        }
        Err(issues) if expects_check_error => {
            if issues
                .errors
                .iter()
                .any(|e| expected_errors.contains(&e.message.as_str()))
            {
                tally.pass += 1;
            } else {
                tally.fail += 1;
                tally.failures.push(format!(
                    "{file}/{name}: `{expr}`: {} expected {expected_errors:?}",
                    issues.display().lines().next().unwrap_or("")
                ));
            }
        }
        Ok(checked) => match expected_type {
            Some(Some(t)) if checked.output_type() != t => {
                tally.fail += 1;
                tally.failures.push(format!(
                    "{file}/{name}: `{expr}`: deduced {} expected {t}",
                    checked.output_type()
                ));
            }
            Some(None) => tally.skip += 1,
            _ => tally.pass += 1,
        },
        Err(issues) => {
            tally.fail += 1;
            tally.failures.push(format!(
                "{file}/{name}: `{expr}`: {}",
                issues.display().lines().next().unwrap_or("")
            ));
        }
    }
}

/// The environment and variables a test's `type_env` declares; `None` when it uses a
/// type we cannot express (protobuf messages).
pub(super) fn test_environment(env_base: &Env, test: &Tp) -> Option<(Env, Vec<(String, Type)>)> {
    let mut env = env_base.clone();
    let mut vars: Vec<(String, Type)> = Vec::new();
    for decl in test.all("type_env") {
        let Some(dname) = decl.get("name").and_then(Tp::str) else {
            continue;
        };
        if let Some(ident) = decl.get("ident") {
            match ident.get("type").and_then(to_type) {
                Some(t) => vars.push((dname.to_string(), t)),
                None => return None,
            }
        }
        if let Some(f) = decl.get("function") {
            let mut overloads = Vec::new();
            for o in f.all("overloads") {
                let id = o.get("overload_id").and_then(Tp::str).unwrap_or("");
                let member = o.get("is_instance_function").and_then(Tp::str) == Some("true");
                let params: Option<Vec<Type>> = o.all("params").map(to_type).collect();
                let result = o.get("result_type").and_then(to_type);
                match (params, result) {
                    (Some(p), Some(r)) => overloads.push(Overload::new(id, member, p, r)),
                    _ => return None,
                }
            }
            env.add_function(Function {
                name: dname.to_string(),
                overloads,
            });
        }
    }
    Some((env, vars))
}

fn walk_sections(env: &Env, node: &Tp, tally: &mut Tally, file: &str) {
    for section in node.all("section") {
        for test in section.all("test") {
            run_test(env, test, tally, file);
        }
    }
}

/// `../shared/<name>` next to the repository (or a worktree of it).
pub(crate) fn shared_dir(name: &str) -> Option<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("../shared"), root.join("../../shared")]
        .into_iter()
        .map(|d| d.join(name))
        .find(|d| d.is_dir())
}

/// The suite's files the Kubernetes environment can run (not [`SKIPPED_FILES`]),
/// parsed, by name; `None` (after saying so) when `../shared/cel-spec-tests` is absent.
pub(super) fn suite_files() -> Option<BTreeMap<String, Tp>> {
    let Some(dir) = shared_dir("cel-spec-tests") else {
        eprintln!("SKIPPED: ../shared/cel-spec-tests not found");
        return None;
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED: {} unreadable", dir.display());
        return None;
    };
    let mut files = BTreeMap::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("textproto") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        if SKIPPED_FILES.contains(&stem.as_str()) {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&path) {
            files.insert(stem, parse_textproto(&text));
        }
    }
    Some(files)
}

#[test]
fn conformance_parse_and_check() {
    let Some(suite) = suite_files() else {
        return;
    };
    let env = (*Env::for_server(KubeVersion::NEWEST)).clone();
    let mut files: BTreeMap<String, Tally> = BTreeMap::new();
    for (stem, root) in suite {
        let mut tally = Tally::default();
        walk_sections(&env, &root, &mut tally, &stem);
        files.insert(stem, tally);
    }
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    for (file, t) in &files {
        eprintln!(
            "{file:>16}: {} pass, {} fail, {} skipped",
            t.pass, t.fail, t.skip
        );
        pass += t.pass;
        fail += t.fail;
        skip += t.skip;
    }
    for t in files.values() {
        for f in &t.failures {
            eprintln!("  FAIL {f}");
        }
    }
    let rate = pass as f64 * 100.0 / (pass + fail).max(1) as f64;
    eprintln!("conformance (parse + check): {pass} pass, {fail} fail, {skip} skipped: {rate:.1}%");
    assert!(rate >= 90.0, "conformance pass rate fell to {rate:.1}%");
}

/// Every test's `expr` in a conformance `.textproto` file (for the fast parser's
/// differential test).
pub(crate) fn expressions(text: &str, out: &mut Vec<String>) {
    let root = parse_textproto(text);
    for section in root.all("section") {
        for test in section.all("test") {
            if let Some(expr) = test.get("expr").and_then(Tp::str) {
                out.push(expr.to_string());
            }
        }
    }
}
