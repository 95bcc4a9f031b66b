//! `--output sarif` is valid SARIF 2.1.0 (checked against the OASIS schema vendored in
//! testdata/sarif) and carries what GitHub code scanning reads.

use std::path::Path;

use crdlint::diag::Diagnostic;
use crdlint::report::location::RepoPaths;
use crdlint::report::sarif;
use crdlint::source::{SourceFile, Span};
use serde_json::{Value, json};

fn schema_errors(instance: &Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sarif/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn two_files() -> Vec<Diagnostic> {
    let crd_text = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: crontabs.stable.example.com\n";
    let cr_text = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: é\n";
    let crd = SourceFile::new("deploy/crds/crontab.yaml", crd_text.to_string());
    let cr = SourceFile::new("deploy/samples/my crontab.yaml", cr_text.to_string());
    let name = crd_text.find("crontabs.").unwrap();
    let kind = cr_text.find("CronTab").unwrap();
    let e = cr_text.find('é').unwrap();
    vec![
        Diagnostic::warning(
            "duplicate-crd",
            "CustomResourceDefinition \"crontabs.stable.example.com\" is defined more than once",
        )
        .with_span(Span::new(name, name + "crontabs.stable.example.com".len()))
        .with_related(Span::new(0, 10), "first defined here")
        .with_help("keep one definition per CRD name")
        .in_document(&crd, 0),
        Diagnostic::error("missing-crd", "no matches for kind \"CronTab\"")
            .with_span(Span::new(kind, kind + 7))
            .in_document(&cr, 0),
        Diagnostic::error("not-an-object", "multi\nline")
            .with_field("metadata.name")
            .with_reason("FieldValueInvalid")
            .with_span(Span::new(e, e + 2))
            .in_document(&cr, 0),
        Diagnostic::error("binary-file", "whole file").in_file(&cr),
        Diagnostic::error("io-error", "stdin").in_file(&SourceFile::new("-", String::new())),
    ]
}

#[test]
fn a_multi_file_run_is_valid_sarif_with_repository_relative_locations() {
    let doc = sarif::document(&two_files(), &RepoPaths::fixed("/repo"));
    assert_eq!(schema_errors(&doc), Vec::<String>::new());

    let run = &doc["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "crdlint");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(driver["informationUri"], env!("CARGO_PKG_REPOSITORY"));
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), crdlint::codes::all().len());
    let missing = rules.iter().find(|r| r["id"] == "missing-crd").unwrap();
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules/missing-crd.md"),
    )
    .unwrap();
    assert_eq!(
        missing,
        &json!({
            "id": "missing-crd",
            "name": "MissingCrd",
            "shortDescription": {"text": crdlint::codes::find("missing-crd").unwrap().summary},
            "help": {"text": page, "markdown": page},
            "helpUri": format!("{}/blob/main/docs/rules/missing-crd.md", env!("CARGO_PKG_REPOSITORY")),
            "defaultConfiguration": {"level": "warning"},
        })
    );

    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(
            rules[index]["id"], r["ruleId"],
            "ruleIndex points at its rule"
        );
    }
    let locations: Vec<Value> = results
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"].clone())
        .collect();
    assert_eq!(
        locations,
        [
            json!({"artifactLocation": {"uri": "deploy/crds/crontab.yaml", "uriBaseId": "%SRCROOT%"},
                   "region": {"startLine": 4, "startColumn": 9, "endLine": 4, "endColumn": 36}}),
            json!({"artifactLocation": {"uri": "deploy/samples/my%20crontab.yaml", "uriBaseId": "%SRCROOT%"},
                   "region": {"startLine": 2, "startColumn": 7, "endLine": 2, "endColumn": 14}}),
            json!({"artifactLocation": {"uri": "deploy/samples/my%20crontab.yaml", "uriBaseId": "%SRCROOT%"},
                   "region": {"startLine": 4, "startColumn": 9, "endLine": 4, "endColumn": 10}}),
            json!({"artifactLocation": {"uri": "deploy/samples/my%20crontab.yaml", "uriBaseId": "%SRCROOT%"}}),
            Value::Null,
        ]
    );
    assert_eq!(results[0]["level"], "warning");
    assert_eq!(
        results[0]["message"]["text"],
        "CustomResourceDefinition \"crontabs.stable.example.com\" is defined more than once\nhelp: keep one definition per CRD name"
    );
    assert_eq!(
        results[0]["relatedLocations"][0]["message"]["text"],
        "first defined here"
    );
    assert_eq!(
        results[2]["properties"],
        json!({"field": "metadata.name", "reason": "FieldValueInvalid"})
    );
    assert_eq!(run["columnKind"], "unicodeCodePoints");
}

#[test]
fn the_schema_check_is_not_vacuous() {
    let mut doc = sarif::document(&two_files(), &RepoPaths::fixed("/repo"));
    doc["runs"][0]["results"][0]["level"] = json!("fatal");
    doc["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        json!(0);
    let errors = schema_errors(&doc);
    assert_eq!(errors.len(), 2, "{errors:?}");
}

#[test]
fn files_outside_the_repository_get_file_uris() {
    let file = SourceFile::new("/elsewhere/x.yaml", "a: 1\n".to_string());
    let d = Diagnostic::error("yaml-syntax", "m")
        .with_span(Span::new(0, 1))
        .in_document(&file, 0);
    let doc = sarif::document(&[d], &RepoPaths::fixed("/repo"));
    assert_eq!(schema_errors(&doc), Vec::<String>::new());
    assert_eq!(
        doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"],
        json!({"uri": "file:///elsewhere/x.yaml"})
    );
}

#[test]
fn the_binary_writes_valid_sarif_for_a_multi_file_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join("k8s/crs")).unwrap();
    let widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";
    std::fs::write(dir.path().join("k8s/crs/a.yaml"), widget).unwrap();
    std::fs::write(
        dir.path().join("k8s/crs/b.yaml"),
        format!("{widget}---\n{widget}"),
    )
    .unwrap();
    std::fs::write(dir.path().join("k8s/bad.yaml"), "a: [\n").unwrap();
    let out = assert_cmd::Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(dir.path().join("k8s"))
        .args(["check", "-o", "sarif", "--no-config"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new());
    let located: Vec<(String, String, u64, u64)> = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let location = &r["locations"][0]["physicalLocation"];
            (
                r["ruleId"].as_str().unwrap().to_string(),
                location["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                location["region"]["startLine"].as_u64().unwrap(),
                location["region"]["startColumn"].as_u64().unwrap(),
            )
        })
        .collect();
    let s = |x: &str| x.to_string();
    assert_eq!(
        located,
        [
            (s("yaml-syntax"), s("k8s/bad.yaml"), 1, 5),
            (s("missing-crd"), s("k8s/crs/a.yaml"), 2, 7),
            (s("missing-crd"), s("k8s/crs/b.yaml"), 2, 7),
            (s("missing-crd"), s("k8s/crs/b.yaml"), 7, 7),
        ]
    );
}

#[test]
fn sarif_for_real_world_crds_is_valid() {
    let corpus = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/crds"),
        Path::new("/work/shared/corpus/crds").to_path_buf(),
    ]
    .into_iter()
    .find(|p| p.is_dir())
    .unwrap_or_default();
    if !corpus.is_dir() {
        eprintln!("SKIP: corpus not found at ../shared/corpus");
        return;
    }
    // A sample keeps the test quick: the first directories of the corpus.
    let mut dirs: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.truncate(3);
    let out = assert_cmd::Command::cargo_bin("crdlint")
        .unwrap()
        .args(["check", "-o", "sarif", "--no-config"])
        .args(&dirs)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new());
    let errors: Vec<&Value> = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["level"] == "error")
        .collect();
    assert!(
        errors.is_empty(),
        "the corpus is accepted by real clusters: {errors:?}"
    );
}
