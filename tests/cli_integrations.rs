//! The commands users meet first, driven through the built binary: `--version`, `--help`,
//! `rules`, `check -o github`, `.crdlint.yaml` and inline suppressions.

use std::path::Path;

use assert_cmd::Command;

fn crdlint() -> Command {
    let mut cmd = Command::cargo_bin("crdlint").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn stdout(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn version_is_the_package_version() {
    let (code, out, _) = stdout(crdlint().arg("--version"));
    assert_eq!(
        (code, out.as_str()),
        (0, concat!("crdlint ", env!("CARGO_PKG_VERSION"), "\n"))
    );
    let (code, out, _) = stdout(crdlint().args(["rules", "--version"]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            concat!("crdlint-rules ", env!("CARGO_PKG_VERSION"), "\n")
        )
    );
}

#[test]
fn every_subcommand_has_examples_in_its_help() {
    for args in [
        vec!["--help"],
        vec!["check", "--help"],
        vec!["rules", "--help"],
        vec!["completions", "--help"],
        vec!["explain", "--help"],
    ] {
        let (code, out, _) = stdout(crdlint().args(&args));
        assert_eq!(code, 0, "{args:?}");
        assert!(
            out.contains("\nExamples:\n  crdlint "),
            "{args:?} has no examples:\n{out}"
        );
    }
}

#[test]
fn rules_lists_every_registered_code() {
    let (code, out, _) = stdout(crdlint().arg("rules"));
    assert_eq!(code, 0);
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["CODE", "SEVERITY", "SUMMARY"]);
    let rows: Vec<Vec<String>> = lines
        .map(|l| {
            l.splitn(3, "  ")
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    let expected: Vec<Vec<String>> = crdlint::codes::all()
        .iter()
        .map(|c| {
            vec![
                c.code.to_string(),
                c.severity.as_str().to_string(),
                c.summary.to_string(),
            ]
        })
        .collect();
    // Columns are separated by at least two spaces; codes and severities have none inside.
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| {
            let joined = r.join("  ");
            let mut parts = joined.split_whitespace();
            let code = parts.next().unwrap_or_default().to_string();
            let severity = parts.next().unwrap_or_default().to_string();
            let summary = parts.collect::<Vec<_>>().join(" ");
            vec![code, severity, summary]
        })
        .collect();
    let expected: Vec<Vec<String>> = expected
        .into_iter()
        .map(|mut r| {
            r[2] = r[2].split_whitespace().collect::<Vec<_>>().join(" ");
            r
        })
        .collect();
    assert_eq!(rows, expected);
}

#[test]
fn rules_json_lists_codes_with_their_documentation_links() {
    let (code, out, _) = stdout(crdlint().args(["rules", "-o", "json"]));
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["version"], 1);
    let rules = doc["rules"].as_array().unwrap();
    assert_eq!(rules.len(), crdlint::codes::all().len());
    let missing = rules.iter().find(|r| r["code"] == "missing-crd").unwrap();
    assert_eq!(
        missing,
        &serde_json::json!({
            "code": "missing-crd",
            "severity": "warning",
            "summary": crdlint::codes::find("missing-crd").unwrap().summary,
            "url": concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/rules/missing-crd.md"),
        })
    );
}

#[test]
fn rules_code_prints_the_doc_page() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules/missing-crd.md"),
    )
    .unwrap();
    let (code, out, _) = stdout(crdlint().args(["rules", "missing-crd"]));
    assert_eq!((code, out), (0, page.clone()));
    let (code, out, _) = stdout(crdlint().args(["rules", "missing-crd", "-o", "json"]));
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["documentation"], page.as_str());
}

#[test]
fn every_registered_code_has_its_page_compiled_in() {
    let compiled: Vec<&str> = crdlint::cli::rules::documented_codes().collect();
    let missing: Vec<&str> = crdlint::codes::all()
        .iter()
        .map(|c| c.code)
        .filter(|c| !compiled.contains(c))
        .collect();
    assert!(missing.is_empty(), "no page compiled in for {missing:?}");
}

#[test]
fn rules_with_an_unknown_code_suggests_the_closest() {
    let (code, out, err) = stdout(crdlint().args(["rules", "missing-crdd"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: unknown code `missing-crdd` (did you mean `missing-crd`?); `crdlint rules` lists every code\n"
        )
    );
}

#[test]
fn github_output_is_workflow_commands() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/bin,ary.yaml"), b"a: \x00\x01\n").unwrap();
    let (code, out, _) = stdout(
        crdlint()
            .current_dir(dir.path().join("sub"))
            .args(["check", "-o", "github", "."]),
    );
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "::error file=sub/bin%2Cary.yaml,title=crdlint(binary-file)::binary file (NUL byte at offset 3); not a YAML or JSON manifest%0Ahelp: exclude it with --exclude GLOB, or save it as UTF-8 text\n\
         1 file, 0 documents (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"
    );
}

/// A directory with a `.git` marker (so repository-relative paths are stable) and files.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const WIDGET: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";
const WIDGET_FINDING: &str = "no matches for kind \"Widget\" in version \"example.com/v1\": no CRD in the checked files or --crds defines it";

#[test]
fn a_config_file_changes_severities_and_default_paths() {
    let dir = project(&[
        ("manifests/widget.yaml", WIDGET),
        ("other/ignored.yaml", "a: [\n"),
    ]);
    // Without configuration: the whole directory, a warning and a syntax error.
    let (code, out, _) = stdout(
        crdlint()
            .current_dir(dir.path())
            .args(["check", "-o", "short"]),
    );
    assert_eq!(code, 1);
    assert!(
        out.contains("other/ignored.yaml:1:5: error[yaml-syntax]"),
        "{out}"
    );

    std::fs::write(
        dir.path().join(".crdlint.yaml"),
        "paths: [manifests]\nseverity:\n  missing-crd: error\n",
    )
    .unwrap();
    let (code, out, err) = stdout(
        crdlint()
            .current_dir(dir.path())
            .args(["check", "-o", "short"]),
    );
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            format!("manifests/widget.yaml:2:7: error[missing-crd]: {WIDGET_FINDING}\n1 file, 1 document (0 CRDs, 0 custom resources): 1 error, 0 warnings\n").as_str(),
            ""
        )
    );

    // From a subdirectory the same file is found, and its paths stay relative to it.
    let sub = dir.path().join("other");
    let (code, out, _) = stdout(crdlint().current_dir(&sub).args(["check", "-o", "short"]));
    assert_eq!(
        (code, out),
        (
            1,
            format!(
                "../manifests/widget.yaml:2:7: error[missing-crd]: {WIDGET_FINDING}\n1 file, 1 document (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"
            )
        )
    );

    // The flag is more specific than the file; --no-config ignores the file.
    let (code, _, _) =
        stdout(
            crdlint()
                .current_dir(dir.path())
                .args(["check", "--missing-crd", "warn"]),
        );
    assert_eq!(code, 0);
    let (code, out, _) = stdout(crdlint().current_dir(dir.path()).args([
        "check",
        "--no-config",
        "-o",
        "short",
        "manifests",
    ]));
    assert_eq!(
        (code, out),
        (
            0,
            format!(
                "manifests/widget.yaml:2:7: warning[missing-crd]: {WIDGET_FINDING}\n1 file, 1 document (0 CRDs, 0 custom resources): 0 errors, 1 warning\n"
            )
        )
    );
    // `off` drops the findings.
    std::fs::write(
        dir.path().join("quiet.yaml"),
        "severity: {missing-crd: off}\n",
    )
    .unwrap();
    let (code, out, _) = stdout(crdlint().current_dir(dir.path()).args([
        "check",
        "--config",
        "quiet.yaml",
        "-o",
        "short",
        "manifests",
    ]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "1 file, 1 document (0 CRDs, 0 custom resources): 0 errors, 0 warnings\n"
        )
    );
}

#[test]
fn a_broken_config_file_is_a_usage_error() {
    let dir = project(&[(".crdlint.yaml", "paths: [a]\nexlude: [b]\n")]);
    let (code, out, err) = stdout(crdlint().current_dir(dir.path()).arg("check"));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: .crdlint.yaml:2:1: unknown setting \"exlude\" (did you mean \"exclude\"?)\n"
        )
    );
    let (code, _, err) =
        stdout(
            crdlint()
                .current_dir(dir.path())
                .args(["check", "--config", "missing.yaml"]),
        );
    assert_eq!(
        (code, err.as_str()),
        (2, "error: missing.yaml: no such file or directory\n")
    );
}

#[test]
fn an_inline_suppression_silences_its_finding_and_unused_ones_are_reported() {
    let suppressed = "apiVersion: example.com/v1\nkind: Widget # crdlint-ignore: missing-crd installed by the platform team\nmetadata:\n  name: w\n";
    let dir = project(&[("a.yaml", WIDGET), ("b.yaml", suppressed)]);
    let (code, out, _) = stdout(crdlint().current_dir(dir.path()).args([
        "check",
        "--missing-crd",
        "error",
        "-o",
        "short",
    ]));
    assert_eq!(
        (code, out),
        (
            1,
            format!(
                "a.yaml:2:7: error[missing-crd]: {WIDGET_FINDING}\n2 files, 2 documents (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"
            )
        )
    );

    // The comment on its own line covers the next line; one above `metadata` covers nothing.
    let misplaced = "apiVersion: example.com/v1\n# crdlint-ignore: missing-crd, duplicate-crd reason\nkind: Widget\n# crdlint-ignore: missing-crd\nmetadata:\n  name: w\n";
    std::fs::write(dir.path().join("a.yaml"), misplaced).unwrap();
    let (code, out, _) = stdout(crdlint().current_dir(dir.path()).args([
        "check",
        "--missing-crd",
        "error",
        "-o",
        "short",
    ]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "a.yaml:2:32: warning[unused-suppression]: unused suppression: no `duplicate-crd` finding on the line it covers\n\
             a.yaml:4:19: warning[unused-suppression]: unused suppression: no `missing-crd` finding on the line it covers\n\
             2 files, 2 documents (0 CRDs, 0 custom resources): 0 errors, 2 warnings\n"
        )
    );
}

#[test]
fn github_annotations_point_at_the_finding() {
    let dir = project(&[("deploy/widget.yaml", WIDGET)]);
    let (code, out, _) = stdout(crdlint().current_dir(dir.path().join("deploy")).args([
        "check",
        "-o",
        "github",
        "--missing-crd",
        "error",
    ]));
    assert_eq!(
        (code, out),
        (
            1,
            "::error file=deploy/widget.yaml,line=2,col=7,endLine=2,endColumn=13,title=crdlint(missing-crd)::no matches for kind \"Widget\" in version \"example.com/v1\": no CRD in the checked files or --crds defines it%0Ahelp: pass the CRD that defines this kind with --crds PATH, or --missing-crd ignore to skip such documents\n\
             1 file, 1 document (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"
                .to_string()
        )
    );
}

#[test]
fn explain_prints_the_crontab_fields() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples");
    let (code, out, err) = stdout(crdlint().current_dir(&examples).args([
        "explain",
        "crontab.spec",
        "--crds",
        "crontab-crd.yaml",
    ]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            0,
            "GROUP:      stable.example.com\nKIND:       CronTab\nVERSION:    v1\nSOURCE:     crontab-crd.yaml\n\n\
             FIELD: spec <Object>\nPATH:  spec\n\nDESCRIPTION:\n    <empty>\n\nFIELDS:\n\
             \x20 cronSpec\t<string>\n    <no description>\n    default: \"5 0 * * *\"\n    pattern: ^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$\n\n\
             \x20 image\t<string>\n    <no description>\n\n\
             \x20 replicas\t<integer>\n    <no description>\n    default: 1\n    minimum: 1\n    maximum: 10\n\n",
            ""
        )
    );
    // A --crds path that cannot be read is said on stderr even when the lookup succeeds
    // (the answer may lack what it held); before session 55 it went unmentioned.
    let (code, out, err) = stdout(crdlint().current_dir(&examples).args([
        "explain",
        "crontab.spec.image",
        "--crds",
        "crontab-crd.yaml",
        "--crds",
        "missing-crds/",
    ]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            0,
            "GROUP:      stable.example.com\nKIND:       CronTab\nVERSION:    v1\nSOURCE:     crontab-crd.yaml\n\n\
             FIELD: image <string>\nPATH:  spec.image\n\nDESCRIPTION:\n    <empty>\n",
            "note: not read: missing-crds/: no such file or directory\n"
        )
    );
    // Without --crds: the current directory; --recursive gives the tree.
    let (code, out, _) = stdout(crdlint().current_dir(&examples).args([
        "explain",
        "CronTabs",
        "--recursive",
        "--no-config",
    ]));
    assert_eq!(code, 0);
    assert_eq!(
        out.split("FIELDS:\n").nth(1).unwrap(),
        "  apiVersion\t<string>\n  kind\t<string>\n  metadata\t<ObjectMeta>\n  spec\t<Object>\n    cronSpec\t<string>\n    image\t<string>\n    replicas\t<integer>\n"
    );
    let (code, out, err) = stdout(crdlint().current_dir(&examples).args([
        "explain",
        "crontab.spec.schedule",
        "--no-config",
    ]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: field \"schedule\" does not exist in spec (fields: cronSpec, image, replicas)\n  (1 CRD read from .)\n"
        )
    );
}

/// A Helm chart's templates are not YAML until rendered: their syntax errors say so and
/// name the two ways out, instead of asking for the YAML to be fixed.
#[test]
fn template_syntax_errors_point_at_rendering() {
    let dir = project(&[
        (
            "templates/widget.yaml",
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {{ include \"x.fullname\" . }}\n  {{- with .Values.labels }}\n  labels: {}\n  {{- end }}\n",
        ),
        ("plain.yaml", "a: [\n"),
    ]);
    let (code, out, _) =
        stdout(
            crdlint()
                .current_dir(dir.path())
                .args(["check", "--no-config", "-o", "json"]),
        );
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let found: Vec<(String, String, u64, u64, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["span"]["start"]["line"].as_u64().unwrap(),
                d["span"]["start"]["column"].as_u64().unwrap(),
                d["help"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    const TEMPLATE: &str = "this looks like a template (`{{ ... }}`), which is not a manifest until it is rendered: check the output instead (`helm template CHART | crdlint check -`), or leave the file out with `--exclude`";
    assert_eq!(
        found,
        vec![
            (
                "plain.yaml".to_string(),
                "yaml-syntax".to_string(),
                1,
                5,
                "fix the YAML syntax here; the rest of this file was not checked".to_string()
            ),
            (
                "templates/widget.yaml".to_string(),
                "not-json".to_string(),
                4,
                10,
                TEMPLATE.to_string()
            ),
            (
                "templates/widget.yaml".to_string(),
                "yaml-syntax".to_string(),
                5,
                5,
                TEMPLATE.to_string()
            ),
        ]
    );
}
