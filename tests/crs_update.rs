//! `crdlint check --old PATH`: resources matching an old object (apiVersion, kind,
//! namespace, name) are checked as updates, with the server's ratcheting; the others
//! as creates.

use assert_cmd::Command;

fn check(args: &[&str]) -> (String, i32) {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--no-config", "-o", "short"])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
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
    let (_, status) = check(&[
        "--crds",
        &format!("{DIR}/crd.yaml"),
        "--old",
        "testdata/crs/no-such-file.yaml",
        &format!("{DIR}/cr.yaml"),
    ]);
    assert_eq!(status, 2);
}
