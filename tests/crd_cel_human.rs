//! `crdlint check` on CRDs whose CEL rules do not compile: the human report points at the
//! exact character inside the rule string as written in the file (plain, quoted with
//! escapes, block scalars), with the compiler's message as the label; `--output json`
//! carries the same position.

use assert_cmd::Command;

fn run(args: &[&str]) -> (String, i32) {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env("COLUMNS", "100")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap(),
    )
}

#[test]
fn human_report_points_into_block_scalar_and_quoted_rules() {
    for case in [
        "cel_plain",
        "cel_single_quoted",
        "cel_double_quoted",
        "cel_literal_block",
        "cel_folded_block",
        "cel_message_expression",
    ] {
        let (out, status) = run(&[
            "check",
            "--color",
            "never",
            &format!("testdata/crd/{case}.yaml"),
        ]);
        insta::assert_snapshot!(case, out);
        assert_eq!(status, 1, "{case}");
    }
}

#[test]
fn json_span_of_a_compile_error_is_the_character_in_the_rule() {
    let (out, status) = run(&[
        "check",
        "--output",
        "json",
        "testdata/crd/cel_double_quoted.yaml",
    ]);
    assert_eq!(status, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "cel-compile-error");
    // `- rule: "self.name == \"\\t\u00e9\" && self.replicaz > 0"`: the `.` before
    // `replicaz` is character 26 of the decoded rule, column 56 of line 24.
    assert_eq!(d["span"]["start"]["line"], 24);
    assert_eq!(d["span"]["start"]["column"], 56);
    assert_eq!(d["span"]["end"]["column"], 57);
    assert_eq!(
        d["detail"],
        "compilation failed: ERROR: <input>:1:27: undefined field 'replicaz'\n | self.name == \"\\té\" && self.replicaz > 0\n | ................．.........^"
    );
}
