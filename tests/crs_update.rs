//! `crdlint check --old PATH`: resources matching an old object (API group, kind,
//! namespace, name) are checked as updates, with the server's ratcheting; the others
//! as creates.

use assert_cmd::Command;

fn check(args: &[&str]) -> (String, i32) {
    let (stdout, _, status) = check_with_stderr(args);
    (stdout, status)
}

fn check_with_stderr(args: &[&str]) -> (String, String, i32) {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--no-config", "-o", "short"])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        output.status.code().unwrap(),
    )
}

const DIR: &str = "testdata/crs/update-ratcheting";

#[test]
fn old_objects_ratchet_unchanged_invalid_values() {
    let (out, status) = check(&[
        "--crds",
        &format!("{DIR}/crd.yaml"),
        "--old",
        &format!("{DIR}/old.yaml"),
        &format!("{DIR}/cr.yaml"),
    ]);
    assert_eq!(
        out,
        "testdata/crs/update-ratcheting/cr.yaml:15:9: error[schema-violation]: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10
testdata/crs/update-ratcheting/cr.yaml:18:25: error[schema-violation]: spec.ports[0].protocol: Unsupported value: \"udp\": supported values: \"TCP\", \"UDP\"
testdata/crs/update-ratcheting/cr.yaml:20:17: error[schema-violation]: spec.env[0].value: Too long: may not be more than 2 bytes
testdata/crs/update-ratcheting/cr.yaml:28:14: error[schema-violation]: spec.name: Too long: may not be more than 3 bytes
1 file, 3 documents (0 CRDs, 3 custom resources): 4 errors, 0 warnings
"
    );
    assert_eq!(status, 1);
}

#[test]
fn without_old_objects_every_document_is_a_create() {
    let (out, status) = check(&[
        "--crds",
        &format!("{DIR}/crd.yaml"),
        &format!("{DIR}/cr.yaml"),
    ]);
    assert!(
        out.ends_with("1 file, 3 documents (0 CRDs, 3 custom resources): 8 errors, 0 warnings\n"),
        "{out}"
    );
    assert_eq!(status, 1);
}

#[test]
fn an_unreadable_old_path_is_an_io_error() {
    let (_, err, status) = check_with_stderr(&[
        "--crds",
        &format!("{DIR}/crd.yaml"),
        "--old",
        "testdata/crs/no-such-file.yaml",
        &format!("{DIR}/cr.yaml"),
    ]);
    assert_eq!(status, 2);
    // The finding says what went wrong; no note that nothing matched besides.
    assert_eq!(err, "");
}

/// `--old` that no checked object matches changes nothing; a misspelt name or namespace
/// would pass unnoticed, so the run says so on stderr (and says nothing when one matches).
#[test]
fn old_objects_that_nothing_updates_are_pointed_out() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.yaml");
    std::fs::write(
        &other,
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: ratchets, namespace: ns}\n---\napiVersion: example.com/v1\nkind: Thing\nmetadata: {name: ratchet, namespace: other}\n",
    )
    .unwrap();
    let nameless = dir.path().join("nameless.yaml");
    std::fs::write(&nameless, "apiVersion: example.com/v1\nkind: Thing\n").unwrap();
    let crd = format!("{DIR}/crd.yaml");
    let cr = format!("{DIR}/cr.yaml");
    let old = format!("{DIR}/old.yaml");

    let (out, err, status) =
        check_with_stderr(&["--crds", &crd, "--old", other.to_str().unwrap(), &cr]);
    assert_eq!(
        err,
        "note: --old: no checked object has the API group, kind, namespace and name of any of the 2 old objects; every object was checked as a create\n"
    );
    assert!(out.ends_with(": 8 errors, 0 warnings\n"), "{out}");
    assert_eq!(status, 1);

    let (_, err, _) =
        check_with_stderr(&["--crds", &crd, "--old", nameless.to_str().unwrap(), &cr]);
    assert_eq!(
        err,
        "note: --old: the old files hold no object with a name; every object was checked as a create\n"
    );

    let (out, err, _) = check_with_stderr(&[
        "--crds",
        &crd,
        "--old",
        &old,
        "--old",
        other.to_str().unwrap(),
        &cr,
    ]);
    assert_eq!(err, "");
    assert!(out.ends_with(": 4 errors, 0 warnings\n"), "{out}");
}

const INVALID_DATA: &str = "testdata/crs/update-invalid-data";

/// Recorded with the Kubernetes 1.35 libraries (`rest.BeforeUpdate` with the custom
/// resource strategy and ratcheting): each update keeps data the schema refuses, the
/// OpenAPI errors ratchet, and the CEL rules that touch the data fail with the
/// server's "invalid data" errors: in `==` with `oldSelf` (maps, lists, map lists),
/// in `has()`, on null list items, and inside an optional `oldSelf`. Metadata is validated whole on an update.
/// (`crs_fixtures` checks the same directory with 1.36, which keeps `int32`.)
#[test]
fn ratcheted_invalid_data_fails_the_rules_that_touch_it() {
    let (out, status) = check(&[
        "--kube-version",
        "1.35",
        "--crds",
        &format!("{INVALID_DATA}/crd.yaml"),
        "--old",
        &format!("{INVALID_DATA}/old.yaml"),
        &format!("{INVALID_DATA}/cr.yaml"),
    ]);
    assert_eq!(
        out,
        r#"testdata/crs/update-invalid-data/cr.yaml:5:14: error[cel-runtime-error]: spec.flag: Invalid value: "boolean": invalid data, expected bool, got int64 evaluating rule: flag immutable
testdata/crs/update-invalid-data/cr.yaml:10:13: error[cel-runtime-error]: spec.obj: Invalid value: "object": invalid data, expected string, got int64 evaluating rule: obj immutable
testdata/crs/update-invalid-data/cr.yaml:15:14: error[cel-runtime-error]: spec.list: Invalid value: "array": invalid data, got null for schema with nullable=false evaluating rule: list immutable
testdata/crs/update-invalid-data/cr.yaml:15:14: error[cel-runtime-error]: spec.list: Invalid value: "array": invalid data, got null for schema with nullable=false evaluating rule: no z
testdata/crs/update-invalid-data/cr.yaml:20:14: error[cel-runtime-error]: spec.deps: Invalid value: "array": invalid data, expected string, got bool evaluating rule: deps immutable
testdata/crs/update-invalid-data/cr.yaml:25:14: error[cel-runtime-error]: spec.path: Invalid value: "object": invalid data, expected string, got bool evaluating rule: type must be Full when full is set
testdata/crs/update-invalid-data/cr.yaml:31:13: error[cel-runtime-error]: spec.opt: Invalid value: "integer": unsupported conversion to ref.Val: (*errors.errorString)invalid data, expected int, got string evaluating rule: opt no decrease
testdata/crs/update-invalid-data/cr.yaml:37:18: error[invalid-metadata]: metadata.name: Invalid value: "meta%": may not contain '%'
testdata/crs/update-invalid-data/cr.yaml:37:60: error[invalid-metadata]: metadata.finalizers: Invalid value: "bad finalizer": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
testdata/crs/update-invalid-data/cr.yaml:42:1: error[cel-rules-skipped]: <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation
testdata/crs/update-invalid-data/cr.yaml:45:15: error[schema-violation]: spec.count: Invalid value: "number": spec.count in body must be of type integer: "number"
1 file, 8 documents (0 CRDs, 8 custom resources): 11 errors, 0 warnings
"#
    );
    assert_eq!(status, 1);
}

/// The server finds the stored object by group, kind, namespace and name, and converts
/// it to the request's version: an object stored in v1 and applied in v1beta1 is an
/// update (the transition rule runs). Confirmed with the reference server (droracle).
#[test]
fn an_old_object_in_another_version_is_updated() {
    const DIR: &str = "testdata/crs/update-across-versions";
    let (out, status) = check(&[
        "--crd",
        &format!("{DIR}/crd.yaml"),
        "--old",
        &format!("{DIR}/old.yaml"),
        &format!("{DIR}/cr.yaml"),
    ]);
    assert_eq!(
        out,
        "testdata/crs/update-across-versions/cr.yaml:8:15: error[cel-rule-failed]: spec.controller: Invalid value: \"example.com/b\": controller is immutable
1 file, 1 document (0 CRDs, 1 custom resource): 1 error, 0 warnings
"
    );
    assert_eq!(status, 1);
}

/// The store's resourceVersion preconditions on updates: `0` is refused, a value other
/// than the stored one (known from the old manifest) is a conflict, the stored one or
/// none is fine. Texts as the reference server (droracle) gives them.
#[test]
fn resource_versions_of_updates_are_preconditions() {
    const DIR: &str = "testdata/crs/update-resource-version";
    let (out, status) = check(&[
        "--crds",
        &format!("{DIR}/crd.yaml"),
        "--old",
        &format!("{DIR}/old.yaml"),
        &format!("{DIR}/cr.yaml"),
    ]);
    assert_eq!(
        out,
        "testdata/crs/update-resource-version/cr.yaml:4:59: error[invalid-metadata]: metadata.resourceVersion: Invalid value: 0: must be specified for an update
testdata/crs/update-resource-version/cr.yaml:10:59: error[update-conflict]: Operation cannot be fulfilled on gadgets.example.com \"g2\": the object has been modified; please apply your changes to the latest version and try again
1 file, 4 documents (0 CRDs, 4 custom resources): 2 errors, 0 warnings
"
    );
    assert_eq!(status, 1);
}
