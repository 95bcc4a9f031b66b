//! End-to-end tests of the `check` command on the foundation's behaviours: driving the
//! built binary, asserting exact output and exit status.

use assert_cmd::Command;

fn crdlint() -> Command {
    let mut cmd = Command::cargo_bin("crdlint").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env("COLUMNS", "100");
    cmd
}

/// Runs `crdlint ARGS`, returns (stdout, exit status).
fn run(args: &[&str]) -> (String, i32) {
    let output = crdlint().args(args).output().unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap(),
    )
}

/// Runs `crdlint check -o json -` on `text`: the report's diagnostics and the status.
fn check_stdin_json(text: &str) -> (Vec<serde_json::Value>, i32) {
    let output = crdlint()
        .args(["check", "-o", "json", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let diagnostics = report["diagnostics"].as_array().unwrap().clone();
    (diagnostics, output.status.code().unwrap())
}

#[test]
fn short_output_for_loader_and_classification_findings() {
    let (out, status) = run(&["check", "-o", "short", "testdata/source"]);
    insta::assert_snapshot!(out);
    assert_eq!(status, 1);
}

#[test]
fn human_output_shows_snippet_code_and_help() {
    let (out, status) = run(&[
        "check",
        "--color",
        "never",
        "testdata/source/v1beta1-crd.yaml",
        "testdata/source/duplicate-key.yaml",
        "testdata/source/binary.yaml",
    ]);
    insta::assert_snapshot!(out);
    assert_eq!(status, 1);
}

#[test]
fn json_output_follows_the_contract() {
    let (out, status) = run(&[
        "check",
        "-o",
        "json",
        "testdata/source/unknown-kind.yaml",
        "testdata/source/list.yaml",
    ]);
    insta::assert_snapshot!(out);
    assert_eq!(status, 0, "missing-crd is a warning by default");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["version"], 1);
}

#[test]
fn missing_crd_policy_changes_severity_and_exit_status() {
    let (out, status) = run(&[
        "check",
        "-o",
        "short",
        "--missing-crd",
        "error",
        "testdata/source/unknown-kind.yaml",
    ]);
    assert_eq!(status, 1);
    assert!(
        out.starts_with("testdata/source/unknown-kind.yaml:2:7: error[missing-crd]: "),
        "{out}"
    );
    let (out, status) = run(&[
        "check",
        "-o",
        "short",
        "--missing-crd",
        "ignore",
        "testdata/source/unknown-kind.yaml",
    ]);
    assert_eq!(status, 0);
    assert_eq!(
        out,
        "1 file, 2 documents (0 CRDs, 0 custom resources): 0 errors, 0 warnings\n"
    );
}

#[test]
fn warnings_as_errors_fails_the_run() {
    let (_, status) = run(&[
        "check",
        "--warnings-as-errors",
        "testdata/source/unknown-kind.yaml",
    ]);
    assert_eq!(status, 1);
}

#[test]
fn a_missing_path_is_an_io_error_with_status_2_and_other_paths_are_still_checked() {
    let (out, status) = run(&[
        "check",
        "-o",
        "short",
        "no/such.yaml",
        "testdata/source/v1beta1-crd.yaml",
    ]);
    assert_eq!(
        out,
        "no/such.yaml: error[io-error]: no such file or directory\n\
         testdata/source/v1beta1-crd.yaml:1:13: error[crd-v1beta1-removed]: no matches for kind \"CustomResourceDefinition\" in version \"apiextensions.k8s.io/v1beta1\": apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22\n\
         1 file, 1 document (0 CRDs, 0 custom resources): 2 errors, 0 warnings\n"
    );
    assert_eq!(status, 2);
}

#[test]
fn a_bad_flag_is_a_usage_error() {
    let (_, status) = run(&["check", "--output", "xml"]);
    assert_eq!(status, 2);
}

#[test]
fn stdin_is_read_with_dash() {
    let output = crdlint()
        .args(["check", "-o", "short", "-"])
        .write_stdin("apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\n")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "-:2:7: warning[missing-crd]: no matches for kind \"Thing\" in version \"example.com/v1\": no CRD in the checked files or --crds defines it\n\
         1 file, 1 document (0 CRDs, 0 custom resources): 0 errors, 1 warning\n"
    );
}

#[test]
fn exclude_leaves_out_matching_files() {
    let (out, _) = run(&[
        "check",
        "-o",
        "short",
        "--exclude",
        "*-*.yaml",
        "--exclude",
        "latin1.yaml",
        "testdata/source",
    ]);
    assert_eq!(
        out,
        "testdata/source/binary.yaml: error[binary-file]: binary file (NUL byte at offset 31); not a YAML or JSON manifest\n\
         testdata/source/list.yaml:5:9: warning[missing-crd]: no matches for kind \"Gadget\" in version \"example.com/v1\": no CRD in the checked files or --crds defines it\n\
         2 files, 2 documents (0 CRDs, 0 custom resources): 1 error, 1 warning\n"
    );
}

/// `.gitignore` and `.ignore` are honoured as ripgrep honours them (a `!pattern` brings a
/// file back, even a hidden one; `.ignore` wins over `.gitignore`); `--no-ignore` reads
/// neither, and hidden names stay out.
#[test]
fn ignore_files_are_honoured_and_no_ignore_reads_none() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Each file has one finding, so the report names every file read.
    let no_kind = "a: 1\n";
    for file in [
        "a.yaml",
        "gen/b.yaml",
        "c.tmp.yaml",
        "keep.tmp.yaml",
        ".crds/d.yaml",
        ".other/e.yaml",
        "sub/f.yaml",
        "sub/g.yaml",
    ] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, no_kind).unwrap();
    }
    std::fs::write(
        root.join(".gitignore"),
        "gen/\n*.tmp.yaml\n!keep.tmp.yaml\n!.crds/\nsub/*.yaml\n",
    )
    .unwrap();
    std::fs::write(root.join("sub/.ignore"), "!f.yaml\n").unwrap();
    let listed = |extra: &[&str]| {
        let mut args = vec!["check", "-o", "short"];
        args.extend_from_slice(extra);
        args.push(root.to_str().unwrap());
        let (out, status) = run(&args);
        assert_eq!(status, 1, "{out}");
        let prefix = format!("{}/", root.display());
        let mut files: Vec<String> = out
            .lines()
            .filter_map(|line| line.strip_prefix(&prefix))
            .map(|line| line.split(':').next().unwrap().to_string())
            .collect();
        files.sort();
        files
    };
    assert_eq!(
        listed(&[]),
        [".crds/d.yaml", "a.yaml", "keep.tmp.yaml", "sub/f.yaml"]
    );
    assert_eq!(
        listed(&["--no-ignore"]),
        [
            "a.yaml",
            "c.tmp.yaml",
            "gen/b.yaml",
            "keep.tmp.yaml",
            "sub/f.yaml",
            "sub/g.yaml"
        ]
    );
}

#[test]
fn an_invalid_exclude_glob_is_a_usage_error_before_any_walk() {
    let output = crdlint()
        .args(["check", "--exclude", "gen/[a-", "testdata/source"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "error: invalid value 'gen/[a-' for '--exclude <GLOB>': invalid glob \"gen/[a-\": unclosed character class; missing ']'\n"
        ),
        "{stderr}"
    );
}

#[test]
fn crds_from_crds_paths_resolve_resources_without_being_reported() {
    let (out, _) = run(&[
        "check",
        "-o",
        "short",
        "--crds",
        "testdata/examples/crontab-crd.yaml",
        "testdata/examples/my-crontab.yaml",
    ]);
    assert_eq!(
        out,
        "1 file, 1 document (0 CRDs, 1 custom resource): 0 errors, 0 warnings\n"
    );
}

#[test]
fn every_definition_of_a_duplicated_crd_is_checked() {
    let (out, status) = run(&["check", "-o", "short", "testdata/duplicate-crd"]);
    assert_eq!(
        out,
        "testdata/duplicate-crd/a.yaml:29:10: error[crd-scope]: spec.scope: Unsupported value: \"Sideways\": supported values: \"Cluster\", \"Namespaced\"\n\
         testdata/duplicate-crd/b.yaml:4:9: warning[duplicate-crd]: CustomResourceDefinition \"crontabs.stable.example.com\" is defined more than once; this definition replaces the one in testdata/duplicate-crd/a.yaml\n\
         2 files, 2 documents (2 CRDs, 0 custom resources): 1 error, 1 warning\n"
    );
    assert_eq!(status, 1);
}

/// kubectl decodes a stream that starts with `{` as JSON values, one after another
/// (`jq -c` output): each is checked, and findings point into their line.
#[test]
fn each_value_of_a_json_stream_is_checked() {
    let (out, status) = run(&["check", "-o", "short", "testdata/json-stream"]);
    assert_eq!(
        out,
        "testdata/json-stream/stream.json:3:98: error[schema-violation]: spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10\n\
         1 file, 3 documents (1 CRD, 2 custom resources): 1 error, 0 warnings\n"
    );
    assert_eq!(status, 1);
}

/// The help of an `ignored-content` warning names the cause: classic Mac line ends (a
/// `---` after a lone CR does not cut kubectl's sections), else a missing `---`. CR CR LF
/// line ends are not lone CRs: kubectl's line reader removes the second CR.
#[test]
fn ignored_content_help_names_lone_carriage_returns() {
    let help_of = |text: &str| {
        let (diagnostics, _) = check_stdin_json(text);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0]["code"], "ignored-content");
        (
            diagnostics[0]["span"]["start"]["offset"].as_u64().unwrap(),
            diagnostics[0]["help"].as_str().unwrap().to_string(),
        )
    };
    let mac = "apiVersion: v1\rkind: ConfigMap\rmetadata:\r  name: a\r---\rapiVersion: v1\r";
    let doubled = "apiVersion: v1\r\r\nkind: ConfigMap\r\r\nmetadata:\r\r\n  name: a\r\r\n...\r\r\nx: 1\r\r\n";
    let cases = [
        (
            mac,
            55,
            "kubectl cuts a file into `---` sections at LF line breaks only, and this file breaks lines with a lone CR (classic Mac line ends), where go-yaml ends the section's first document at `---`: convert its line ends to LF or CRLF",
        ),
        (
            doubled,
            65,
            "put `---` before it to make it a document of its own (kubectl reads the first document of each `---` section only)",
        ),
    ];
    for (text, offset, help) in cases {
        assert_eq!(help_of(text), (offset, help.to_string()), "{text:?}");
    }
}

#[test]
fn directive_help_says_why_kubectl_refuses_or_skips_it() {
    let diagnostics_of = |text: &str| {
        check_stdin_json(text)
            .0
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["message"].as_str().unwrap().to_string(),
                    d["help"].as_str().unwrap().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    let object = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";
    let cases = [
        (
            format!("%YAML 1.1\n---\n{object}"),
            "did not find expected <document start>",
            "kubectl converts the lines before `---` as a document of their own, and a directive alone fails: remove this line (Kubernetes manifests need no directives)",
        ),
        (
            format!("%YAML 1.2\r---\r{object}"),
            "found incompatible YAML document",
            "kubectl's YAML parser (go-yaml) refuses this directive and the document after it: remove this line (Kubernetes manifests need no directives)",
        ),
        (
            format!("{object}%YAML 1.1\n"),
            "kubectl never reads this: it reads one document per `---` section, and this is after the first",
            "to go-yaml (kubectl) a directive line ends the document before it, and kubectl reads nothing more up to the next `---`: remove it (Kubernetes manifests need no directives)",
        ),
    ];
    for (text, message, help) in cases {
        let code = if message.starts_with("kubectl never") {
            "ignored-content"
        } else {
            "yaml-syntax"
        };
        assert_eq!(
            diagnostics_of(&text),
            [(code.to_string(), message.to_string(), help.to_string())],
            "{text:?}"
        );
    }
    // A valid prologue before a `---` after a lone CR: the document is read and checked.
    assert_eq!(
        diagnostics_of(&format!("%YAML 1.1\r---\r{}", object.replace('\n', "\r"))),
        []
    );
}

#[test]
fn yaml_after_a_json_object_is_checked_as_kubectl_reads_it() {
    // kubectl's decoder (apimachinery 1.35) reads a JSON object, then the rest as YAML:
    // the second object is applied, so it is checked.
    let (diagnostics, status) = check_stdin_json(
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"}}\nmetadata:\n  name: b\n",
    );
    let found: Vec<_> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["span"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(found, [("missing-type-meta".to_string(), 2)]);
    assert_eq!(status, 1);
}

#[test]
fn a_json_crd_with_surrogate_escapes_is_read_as_kubectl_decodes_it() {
    // Python's json.dump writes an emoji as a UTF-16 surrogate pair (`\ud83d\ude00`);
    // kubectl's JSON decoder joins it, and the CEL error is marked at the `+` after it.
    let crd = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
   "type": "object", "description": "A widget \ud83d\ude80",
   "properties": {"spec": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}},
    "x-kubernetes-validations": [{"rule": "self.name != '\ud83d\ude00' + 1"}]}}}}}]}}
"#;
    let (diagnostics, status) = check_stdin_json(crd);
    let found: Vec<_> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["span"]["start"]["line"].as_u64().unwrap(),
                d["span"]["start"]["column"].as_u64().unwrap(),
                d["message"].as_str().unwrap().contains("'😀' + 1"),
            )
        })
        .collect();
    assert_eq!(found, [("cel-compile-error", 8, 72, true)]);
    assert_eq!(status, 1);
}

#[test]
fn a_broken_json_manifest_gets_kubectls_json_error_and_a_json_help() {
    // kubectl 1.35: the JSON error when the YAML reading fails too.
    let (diagnostics, status) =
        check_stdin_json("{\"apiVersion\": \"v1\" \"kind\": \"ConfigMap\"}\n");
    let found: Vec<_> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
                d["span"]["start"]["column"].as_u64().unwrap(),
                d["help"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("fix the JSON syntax here"),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(
            "yaml-syntax",
            "json: offset 21: invalid character '\"' after object key:value pair",
            21,
            true
        )]
    );
    assert_eq!(status, 1);
}

#[test]
fn a_number_beyond_float64_in_a_json_manifest_fails_its_document() {
    // kubectl 1.35's unstructured decoder refuses the number and applies the other
    // documents; the CRD after it is read (it has findings of its own: no versions).
    let text = concat!(
        "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"n\": 1e400}\n",
        "{\"apiVersion\": \"apiextensions.k8s.io/v1\", \"kind\": \"CustomResourceDefinition\"}\n",
    );
    let (diagnostics, status) = check_stdin_json(text);
    let found: Vec<_> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["span"]["start"]["line"].as_u64().unwrap(),
                d["span"]["start"]["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(found[0], ("not-json", 1, 48));
    assert_eq!(
        diagnostics[0]["message"],
        "json: cannot unmarshal number 1e400 into Go value of type float64"
    );
    assert!(
        found[1..].iter().all(|&(_, line, _)| line == 2),
        "{found:?}"
    );
    assert!(found.len() > 1, "the second document is checked: {found:?}");
    assert_eq!(status, 1);
}

/// Every command's output, for the output tests below: (arguments, exit status when
/// the output is written).
/// `crdlint` as a plain process, whose stdout and stderr can be any file or pipe.
fn crdlint_process() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("crdlint"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env("COLUMNS", "100");
    cmd
}

const EVERY_OUTPUT: &[(&[&str], i32)] = &[
    (&["check", "testdata/examples"], 1),
    (&["check", "-o", "sarif", "testdata/examples"], 1),
    (
        &["check", "-o", "json", "testdata/examples/crontab-crd.yaml"],
        0,
    ),
    (
        &[
            "dry-run",
            "--crds",
            "testdata/examples/crontab-crd.yaml",
            "testdata/examples/my-crontab.yaml",
        ],
        0,
    ),
    (
        &[
            "dry-run",
            "--diff",
            "--crds",
            "testdata/examples/crontab-crd.yaml",
            "testdata/examples/my-crontab.yaml",
        ],
        0,
    ),
    (&["cost", "testdata/examples/crontab-crd.yaml"], 0),
    (
        &[
            "explain",
            "--no-config",
            "--crds",
            "testdata/examples/crontab-crd.yaml",
            "crontab",
        ],
        0,
    ),
    (&["rules"], 0),
    (&["rules", "schema-violation"], 0),
    (&["completions", "bash"], 0),
];

/// A report that cannot be written (a full disk behind `> report.sarif`) is an I/O
/// error, said on stderr, with exit status 2: before session 53 every command dropped
/// the error and a CI step passed with an empty report.
#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_is_an_io_error() {
    for (args, _) in EVERY_OUTPUT {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = crdlint_process().args(*args).stdout(full).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            "error: cannot write the output: no space left on device\n",
            "{args:?}"
        );
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}

/// A reader that stops early (`crdlint check | head`) is the reader's choice: no
/// message, and the exit status the findings give.
#[cfg(unix)]
#[test]
fn a_closed_pipe_is_not_an_error() {
    for (args, status) in EVERY_OUTPUT {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = crdlint_process()
            .args(*args)
            .stdout(writer)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{args:?}");
        assert_eq!(output.status.code(), Some(*status), "{args:?}");
    }
}

/// Messages for stderr that stderr cannot take are dropped, not a panic (exit status
/// 101): `eprintln!` panicked on a full stderr before session 53.
#[cfg(target_os = "linux")]
#[test]
fn messages_that_stderr_cannot_take_are_dropped_without_a_panic() {
    let runs: &[&[&str]] = &[
        &[
            "explain",
            "--no-config",
            "--crds",
            "testdata/examples",
            "widget",
        ],
        &["cost", "--near", "7", "testdata/examples"],
        &["rules", "no-such-code"],
        &[
            "check",
            "--config",
            "no-such-config.yaml",
            "testdata/examples",
        ],
    ];
    for args in runs {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = crdlint_process().args(*args).stderr(full).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}
