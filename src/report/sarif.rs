//! SARIF 2.1.0, the format GitHub code scanning (and most code-review tools) ingest:
//! one run whose driver lists every crdlint code as a rule, and one result per
//! diagnostic with a repository-relative location.

use serde_json::{Map, Value, json};

use super::json;
use super::location::{RepoPaths, file_uri, uri_path};
use crate::diag::{CodeInfo, Diagnostic, Severity};
use crate::source::{SourceFile, Span};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Where the rule documentation lives: `docs/rules/<code>.md` of the repository.
pub fn help_uri(code: &str) -> String {
    format!(
        "{}/blob/main/docs/rules/{code}.md",
        env!("CARGO_PKG_REPOSITORY")
    )
}

pub fn render(diagnostics: &[Diagnostic], paths: &RepoPaths) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail, and JSON text is UTF-8.
    let _ = write(&mut out, diagnostics, paths);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes the SARIF log to `out` one result at a time: the same bytes as
/// pretty-printing [`document`], without holding it (a result is a few kilobytes of
/// JSON values: 1,000,000 findings made a 4 GB tree for 430 MB of text).
pub fn write(
    out: &mut impl std::io::Write,
    diagnostics: &[Diagnostic],
    paths: &RepoPaths,
) -> std::io::Result<()> {
    let rules = rules_for(diagnostics);
    let skeleton = serde_json::to_string_pretty(&log(&rules, Vec::new()))?;
    // The empty results list stands where the results go (`"results": []` cannot occur
    // inside a JSON string, whose quotes are escaped).
    const EMPTY: &str = "\"results\": []";
    let at = skeleton.find(EMPTY).unwrap_or(skeleton.len());
    out.write_all(&skeleton.as_bytes()[..at])?;
    out.write_all(b"\"results\": [")?;
    // Results are items of `runs[0].results`: 8 spaces in, their list 6.
    for (i, d) in diagnostics.iter().enumerate() {
        out.write_all(if i == 0 {
            b"\n        "
        } else {
            b",\n        "
        })?;
        let index = rule_index(&rules, d.code);
        json::pretty(
            &mut json::Indented { out, indent: 8 },
            &result(d, index, paths),
        )?;
    }
    if !diagnostics.is_empty() {
        out.write_all(b"\n      ")?;
    }
    out.write_all(b"]")?;
    out.write_all(skeleton.get(at + EMPTY.len()..).unwrap_or("").as_bytes())?;
    out.write_all(b"\n")
}

/// The SARIF log as a JSON value.
pub fn document(diagnostics: &[Diagnostic], paths: &RepoPaths) -> Value {
    let rules = rules_for(diagnostics);
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| result(d, rule_index(&rules, d.code), paths))
        .collect();
    log(&rules, results)
}

fn rule_index(rules: &[CodeInfo], code: &str) -> usize {
    rules.iter().position(|r| r.code == code).unwrap_or(0)
}

/// Every crdlint code, and any code emitted but missing from the registry.
fn rules_for(diagnostics: &[Diagnostic]) -> Vec<CodeInfo> {
    let mut rules: Vec<CodeInfo> = crate::codes::all().into_iter().copied().collect();
    // A code emitted but missing from the registry still gets a rule, so `ruleIndex`
    // is always valid (the registry test keeps this from happening).
    for d in diagnostics {
        if !rules.iter().any(|r| r.code == d.code) {
            rules.push(CodeInfo {
                code: d.code,
                severity: d.severity,
                summary: "",
            });
        }
    }
    rules
}

/// The log of one run with `rules` and `results`.
fn log(rules: &[CodeInfo], results: Vec<Value>) -> Value {
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "crdlint",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules.iter().map(rule).collect::<Vec<_>>(),
            }},
            // Our columns count Unicode scalar values, not UTF-16 code units.
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn rule(info: &CodeInfo) -> Value {
    let mut rule = json!({
        "id": info.code,
        "name": pascal_case(info.code),
        "helpUri": help_uri(info.code),
        "defaultConfiguration": {"level": level(info.severity)},
    });
    if !info.summary.is_empty() {
        rule["shortDescription"] = json!({"text": info.summary});
    }
    // The rule's page is its help: code-scanning alerts show it in full.
    match super::docs::page(info.code) {
        Some(page) => rule["help"] = json!({"text": page, "markdown": page}),
        None if !info.summary.is_empty() => {
            rule["help"] = json!({"text": format!("{}. See {}", info.summary, help_uri(info.code))})
        }
        None => {}
    }
    rule
}

/// `missing-crd` → `MissingCrd`: SARIF's `name` is an identifier-like rule name.
fn pascal_case(code: &str) -> String {
    code.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn result(d: &Diagnostic, rule_index: usize, paths: &RepoPaths) -> Value {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let mut result = json!({
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": {"text": message},
    });
    if let Some(file) = &d.file
        && let Some(location) = physical_location(file, d.span, paths)
    {
        result["locations"] = json!([{"physicalLocation": location}]);
        let related: Vec<Value> = d
            .related
            .iter()
            .enumerate()
            .filter_map(|(i, label)| {
                let location = physical_location(file, Some(label.span), paths)?;
                Some(json!({
                    "id": i + 1,
                    "physicalLocation": location,
                    "message": {"text": label.message},
                }))
            })
            .collect();
        if !related.is_empty() {
            result["relatedLocations"] = Value::Array(related);
        }
    }
    let mut properties = Map::new();
    if let Some(field) = &d.field {
        properties.insert("field".into(), json!(field));
    }
    if let Some(reason) = d.reason {
        properties.insert("reason".into(), json!(reason));
    }
    if let Some(object) = &d.object {
        properties.insert(
            "object".into(),
            json!({
                "apiVersion": object.api_version,
                "kind": object.kind,
                "name": object.name,
                "namespace": object.namespace,
            }),
        );
    }
    if !properties.is_empty() {
        result["properties"] = Value::Object(properties);
    }
    result
}

/// `None` for stdin: a result without a location is still a result.
fn physical_location(file: &SourceFile, span: Option<Span>, paths: &RepoPaths) -> Option<Value> {
    if file.path == "-" || file.path.is_empty() {
        return None;
    }
    let artifact = match paths.relative(&file.path) {
        Some(relative) => json!({"uri": uri_path(&relative), "uriBaseId": "%SRCROOT%"}),
        None => json!({"uri": file_uri(&paths.absolute(&file.path))}),
    };
    let mut location = json!({"artifactLocation": artifact});
    if let Some(span) = span {
        let (start, end) = file.range(span);
        location["region"] = json!({
            "startLine": start.line,
            "startColumn": start.column,
            "endLine": end.line,
            "endColumn": end.column,
        });
    }
    Some(location)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamed_log_is_the_pretty_printed_document() {
        let file = SourceFile::new("/repo/a.yaml", "kind: A\nkind: B\n".to_string());
        let paths = RepoPaths::fixed("/repo");
        let at = |line: usize| {
            Span::new(
                file.lines().line_start(line),
                file.lines().line_start(line) + 4,
            )
        };
        let diagnostics = [
            Diagnostic::error("missing-crd", "no CRD\nfor \"A\"")
                .with_span(at(0))
                .in_document(&file, 0),
            Diagnostic::warning("not-a-crdlint-code", "m")
                .with_span(at(1))
                .in_document(&file, 1),
            Diagnostic::error("yaml-syntax", "x"),
        ];
        for count in [0, 1, 3] {
            let expected = serde_json::to_string_pretty(&document(&diagnostics[..count], &paths))
                .unwrap()
                + "\n";
            assert_eq!(
                render(&diagnostics[..count], &paths),
                expected,
                "{count} results"
            );
        }
    }

    #[test]
    fn rule_names_are_pascal_case() {
        assert_eq!(pascal_case("crd-v1beta1-removed"), "CrdV1beta1Removed");
    }

    #[test]
    fn a_result_points_at_its_repository_relative_region() {
        let text = "kind: Widget\nspec:\n  size: é\n";
        let file = SourceFile::new("sub dir/w.yaml", text.to_string());
        let at = text.find('é').unwrap();
        let d = Diagnostic::warning("missing-crd", "no CRD")
            .with_span(Span::new(at, at + 'é'.len_utf8()))
            .with_related(Span::new(0, 4), "kind here")
            .in_document(&file, 0);
        let doc = document(&[d], &RepoPaths::fixed("/repo"));
        let result = &doc["runs"][0]["results"][0];
        let rules = doc["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], "missing-crd");
        assert_eq!(
            result["locations"][0]["physicalLocation"],
            json!({
                "artifactLocation": {"uri": "sub%20dir/w.yaml", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 3, "startColumn": 9, "endLine": 3, "endColumn": 10},
            })
        );
        assert_eq!(
            result["relatedLocations"][0]["physicalLocation"]["region"],
            json!({"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 5})
        );
        assert_eq!(result["level"], "warning");
    }
}
