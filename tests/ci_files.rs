//! The integration files users reference from their repositories: `action.yml` (its
//! check script runs here as the runner would run it) and `.pre-commit-hooks.yaml`.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use crdlint::source::Node;
use crdlint::source::yaml::{Limits, parse};

fn read_yaml(name: &str) -> Node {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap();
    let parsed = parse(&text, &Limits::default());
    assert!(parsed.errors.is_empty(), "{name}: {:?}", parsed.errors);
    assert_eq!(parsed.documents.len(), 1, "{name}");
    parsed.documents.into_iter().next().unwrap().root
}

fn string<'a>(node: &'a Node, key: &str) -> &'a str {
    node.get(key)
        .and_then(Node::as_str)
        .unwrap_or_else(|| panic!("{key} is not a string"))
}

#[test]
fn the_pre_commit_hook_is_complete_and_its_entry_parses() {
    let root = read_yaml(".pre-commit-hooks.yaml");
    let hooks = root.as_array().unwrap();
    assert_eq!(hooks.len(), 1);
    let hook = &hooks[0];
    assert_eq!(string(hook, "id"), "crdlint");
    assert_eq!(string(hook, "language"), "rust");
    assert_eq!(
        hook.get("require_serial").and_then(Node::as_bool),
        Some(true)
    );
    let types: Vec<&str> = hook
        .get("types_or")
        .and_then(Node::as_array)
        .unwrap()
        .iter()
        .filter_map(Node::as_str)
        .collect();
    assert_eq!(types, ["yaml", "json"]);
    // pre-commit appends the file names to the entry (and the user's args before them).
    let mut argv: Vec<&str> = string(hook, "entry").split_whitespace().collect();
    argv.extend(["--crds", "config/crd", "a.yaml", "b.json"]);
    crdlint::cli::Cli::try_parse_from(argv).unwrap();
}

struct ActionRun {
    status: i32,
    stdout: String,
    outputs: String,
    dir: tempfile::TempDir,
}

fn run_action_check(files: &[(&str, &str)], inputs: &[(&str, &str)]) -> ActionRun {
    let action = read_yaml("action.yml");
    let steps = action
        .get_path(&["runs", "steps"])
        .and_then(Node::as_array)
        .unwrap();
    let check = steps
        .iter()
        .find(|s| s.get("id").and_then(Node::as_str) == Some("check"))
        .expect("a step with id: check");
    let script = string(check, "run");
    let declared: Vec<&str> = check
        .get("env")
        .and_then(Node::as_object)
        .unwrap()
        .iter()
        .map(|(k, _)| k)
        .collect();

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let outputs = dir.path().join("github_output");
    let binary = assert_cmd::cargo::cargo_bin("crdlint");
    let bin_dir: PathBuf = binary.parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .arg("-e")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .env("PATH", path)
        .env("GITHUB_OUTPUT", &outputs)
        .env("NO_COLOR", "1");
    for name in &declared {
        command.env(name, "");
    }
    for (name, value) in [
        ("INPUT_ANNOTATIONS", "true"),
        ("INPUT_FAIL_ON_FINDINGS", "true"),
    ] {
        command.env(name, value);
    }
    for (name, value) in inputs {
        assert!(
            declared.contains(name),
            "{name} is not an input of the check step"
        );
        command.env(name, value);
    }
    let out = command.output().unwrap();
    ActionRun {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        outputs: std::fs::read_to_string(&outputs).unwrap_or_default(),
        dir,
    }
}

const WIDGET: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";

#[test]
fn the_action_annotates_writes_sarif_and_fails_on_findings() {
    let run = run_action_check(
        &[("k8s/widget.yaml", WIDGET), ("k8s/crds/.keep", "")],
        &[
            ("INPUT_PATHS", "k8s\n"),
            ("INPUT_CRDS", "k8s/crds"),
            ("INPUT_ARGS", "--missing-crd error"),
            ("INPUT_SARIF_FILE", "out.sarif"),
        ],
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stdout.starts_with(
            "::error file=k8s/widget.yaml,line=2,col=7,endLine=2,endColumn=13,title=crdlint(missing-crd)::"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(run.outputs, "sarif-file=out.sarif\nexit-code=1\n");
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.dir.path().join("out.sarif")).unwrap())
            .unwrap();
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "missing-crd");
}

#[test]
fn the_action_can_report_without_failing() {
    let run = run_action_check(
        &[("widget.yaml", WIDGET)],
        &[
            ("INPUT_ARGS", "--missing-crd error"),
            ("INPUT_FAIL_ON_FINDINGS", "false"),
            ("INPUT_ANNOTATIONS", "false"),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stdout);
    assert!(run.stdout.contains("missing-crd"), "{}", run.stdout);
    assert!(!run.stdout.contains("::error"), "{}", run.stdout);
    assert_eq!(run.outputs, "exit-code=1\n");
}

#[test]
fn the_action_fails_on_usage_errors_whatever_the_inputs() {
    let run = run_action_check(
        &[],
        &[
            ("INPUT_PATHS", "no/such/dir"),
            ("INPUT_FAIL_ON_FINDINGS", "false"),
        ],
    );
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert_eq!(run.outputs, "exit-code=2\n");
}
