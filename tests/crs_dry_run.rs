//! `crdlint dry-run` and conversion: the stored object's apiVersion with strategy
//! `None` (the storage version) and `Webhook` (the request version, with a note on
//! stderr saying the webhook was not run).

use assert_cmd::Command;

fn dry_run(case: &str) -> (String, String, i32) {
    let dir = format!("testdata/crs/{case}");
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["dry-run", "--color", "never", "--crd"])
        .arg(format!("{dir}/crd.yaml"))
        .arg(format!("{dir}/cr.yaml"))
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        output.status.code().unwrap(),
    )
}

#[test]
fn webhook_conversion_keeps_the_request_version_and_says_so() {
    let (out, err, status) = dry_run("conversion-webhook");
    assert_eq!(
        out,
        "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  generation: 1\n  name: converted-by-webhook\n  namespace: default\nspec:\n  size: 1\n"
    );
    assert_eq!(
        err,
        "note: testdata/crs/conversion-webhook/cr.yaml: the CRD converts with a webhook, which crdlint does not run; the object is shown in the request version example.com/v1\n"
    );
    assert_eq!(status, 0);
}

#[test]
fn strategy_none_changes_only_the_api_version() {
    let (out, err, status) = dry_run("conversion-none");
    assert_eq!(
        out,
        "apiVersion: example.com/v2\nkind: Thing\nmetadata:\n  generation: 1\n  name: converted-by-apiversion\n  namespace: default\nspec:\n  size: 1\n"
    );
    assert_eq!(err, "");
    assert_eq!(status, 0);
}
