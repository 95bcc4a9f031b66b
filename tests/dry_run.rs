//! `crdlint dry-run`: the stored object on stdout, findings on stderr, exact bytes.

use assert_cmd::Command;

fn dry_run(args: &[&str]) -> (String, String, i32) {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("COLUMNS", "100")
        .args([
            "dry-run",
            "--color",
            "never",
            "--crd",
            "testdata/examples/crontab-crd.yaml",
        ])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        output.status.code().unwrap(),
    )
}

#[test]
fn defaults_are_applied_and_unknown_fields_pruned_with_a_warning() {
    let (out, err, status) = dry_run(&["testdata/dry-run/defaulting.yaml"]);
    assert_eq!(
        out,
        "apiVersion: stable.example.com/v1\n\
         kind: CronTab\n\
         metadata:\n  generation: 1\n  name: my-new-cron-object\n  namespace: default\n\
         spec:\n  cronSpec: 5 0 * * *\n  image: my-awesome-cron-image\n  replicas: 1\n"
    );
    assert!(
        err.contains("⚠ unknown field \"spec.unknownField\""),
        "{err}"
    );
    assert!(
        err.contains("[testdata/dry-run/defaulting.yaml:9:3]"),
        "{err}"
    );
    assert_eq!(status, 0);
}

#[test]
fn json_output_of_several_objects_is_a_v1_list() {
    let (out, _, status) = dry_run(&[
        "-o",
        "json",
        "testdata/dry-run/defaulting.yaml",
        "testdata/examples/my-crontab.yaml",
    ]);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list["kind"], "List");
    assert_eq!(list["apiVersion"], "v1");
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["spec"]["cronSpec"], "5 0 * * *");
    assert_eq!(items[1]["spec"]["cronSpec"], "* * * * */5");
    assert_eq!(items[1]["spec"]["replicas"], 1);
    assert_eq!(status, 0);
}

#[test]
fn diff_shows_what_pruning_and_defaulting_changed() {
    let (out, _, _) = dry_run(&["--diff", "testdata/dry-run/defaulting.yaml"]);
    assert_eq!(
        out,
        "--- testdata/dry-run/defaulting.yaml#0 (as written)\n\
         +++ testdata/dry-run/defaulting.yaml#0 (as stored)\n\
         @@ -1,7 +1,10 @@\n \
         apiVersion: stable.example.com/v1\n \
         kind: CronTab\n \
         metadata:\n\
         +  generation: 1\n   \
         name: my-new-cron-object\n\
         +  namespace: default\n \
         spec:\n\
         +  cronSpec: 5 0 * * *\n   \
         image: my-awesome-cron-image\n\
         -  unknownField: dropped\n\
         +  replicas: 1\n"
    );
}

#[test]
fn invalid_objects_are_reported_not_printed() {
    let (out, err, status) = dry_run(&[
        "testdata/examples/invalid-crontab.yaml",
        "testdata/examples/my-crontab.yaml",
    ]);
    assert!(out.contains("cronSpec: '* * * * */5'"), "{out}");
    assert!(!out.contains("replicas: 15"), "{out}");
    assert!(err.contains("spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10"), "{err}");
    assert_eq!(status, 1);
}

#[test]
fn the_storage_path_coerces_with_the_storage_versions_schema() {
    // v1 request, v2 storage: v1's schema prunes and defaults; on the storage path v2's
    // schema drops `legacyColour` (unknown to v2) and the null `note` (nullable only in
    // v1), and v2's default for `shape` is not applied (no defaulting when encoding).
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "dry-run",
            "--color",
            "never",
            "--crd",
            "testdata/dry-run/storage-version/crd.yaml",
            "testdata/dry-run/storage-version/cr.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "apiVersion: example.com/v2\n\
         kind: Gadget\n\
         metadata:\n  generation: 1\n  name: g1\n  namespace: default\n\
         spec:\n  size: 3\n"
    );
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn server_written_metadata_is_not_echoed_and_a_resource_version_fails_a_create() {
    // The server replaces uid, creationTimestamp and managedFields with its own values
    // (not printed); a numeric resourceVersion makes etcd refuse the create.
    let dir = std::env::temp_dir().join(format!("crdlint-dry-run-meta-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exported = dir.join("exported.yaml");
    std::fs::write(
        &exported,
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\n  \
         uid: 0f6b3c2e-0000-0000-0000-000000000000\n  creationTimestamp: null\n  \
         managedFields: []\nspec:\n  cronSpec: '* * * * */5'\n  image: x\n---\n\
         apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: b\n  \
         namespace: team\n  resourceVersion: \"42\"\nspec:\n  cronSpec: '* * * * */5'\n  image: x\n",
    )
    .unwrap();
    let (out, err, status) = dry_run(&[exported.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        out,
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  generation: 1\n  \
         name: a\n  namespace: default\nspec:\n  cronSpec: '* * * * */5'\n  image: x\n  \
         replicas: 1\n"
    );
    assert!(
        err.contains(
            "Internal error occurred: resourceVersion should not be set on objects to be created"
        ),
        "{err}"
    );
    assert_eq!(status, 1);
}

#[test]
fn a_text_without_a_final_line_break_reads_as_kubectl_reads_it() {
    // kubectl's YAMLReader ends every line with a break, the last one included: a
    // block scalar's last content line keeps its break, and a last line of indentation
    // only is an empty line (clipped). Values recorded with droracle (the 1.35
    // libraries reading through the same reader).
    let dir = std::env::temp_dir().join(format!("crdlint-dry-run-eof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let head = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\nspec:\n  \
                cronSpec: '* * * * */5'\n  image: |\n";
    let content = dir.join("content.yaml");
    std::fs::write(&content, format!("{head}    sleep 1000")).unwrap();
    let blank = dir.join("blank.yaml");
    std::fs::write(&blank, format!("{head}    sleep 1000\n    ")).unwrap();
    for file in [&content, &blank] {
        let (out, err, status) = dry_run(&["-o", "json", file.to_str().unwrap()]);
        let stored: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(stored["spec"]["image"], "sleep 1000\n", "{file:?}: {err}");
        assert_eq!(status, 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_document_with_a_yaml_error_is_not_printed() {
    // kubectl's strict YAML to JSON conversion refuses the first document; the second
    // is stored.
    let dir = std::env::temp_dir().join(format!("crdlint-dry-run-dup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("dup.yaml");
    std::fs::write(
        &file,
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\nspec:\n  \
         cronSpec: '* * * * */5'\n  image: x\n  image: y\n---\n\
         apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: b\nspec:\n  \
         cronSpec: '* * * * */5'\n  image: z\n",
    )
    .unwrap();
    let (out, err, status) = dry_run(&["-o", "json", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    let stored: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(stored["metadata"]["name"], "b", "{out}");
    assert!(err.contains("duplicate-key"), "{err}");
    assert_eq!(status, 1);
}

/// `--old`: a matching object is stored as an update (recorded with the 1.35 libraries'
/// `rest.BeforeUpdate`): only metadata changed, so the old generation stays; the
/// update that breaks the metadata rules is reported and not printed.
#[test]
fn old_objects_make_updates() {
    let (out, err, status) = dry_run(&[
        "--crd",
        "testdata/crs/update-metadata/crd.yaml",
        "--old",
        "testdata/crs/update-metadata/old.yaml",
        "testdata/crs/update-metadata/cr.yaml",
    ]);
    assert_eq!(
        out,
        "apiVersion: example.com/v1\n\
         kind: Thing\n\
         metadata:\n  finalizers:\n  - plain\n  generation: 7\n  labels:\n    team: b\n  name: relabel\n  namespace: default\n\
         spec:\n  size: 1\n"
    );
    assert!(
        err.contains("× metadata.uid: Invalid value: \"2222-new\": field is immutable"),
        "{err}"
    );
    assert!(
        err.ends_with("1 file, 2 documents (0 CRDs, 2 custom resources): 4 errors, 1 warning\n"),
        "{err}"
    );
    assert_eq!(status, 1);
}

#[test]
fn metadata_is_written_back_as_the_decoded_object_meta() {
    // `SetObjectMeta` (root and embedded resources): omitempty fields go, null label
    // values become "", an embedded `metadata: null` becomes {} (read from the
    // apiextensions-apiserver v0.35 source: objectmeta.CoerceWithOptions and the
    // handler's unstructuredSchemaCoercer).
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "dry-run",
            "--color",
            "never",
            "--crd",
            "testdata/dry-run/metadata/crd.yaml",
            "testdata/dry-run/metadata/cr.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "apiVersion: example.com/v1\nkind: Widget\n\
         metadata:\n  generation: 1\n  name: w\n  namespace: default\n\
         spec:\n  tpl:\n    apiVersion: v1\n    kind: Pod\n    metadata:\n      labels:\n        app: \"\"\n      \
         name: x\n      ownerReferences:\n      - apiVersion: v1\n        kind: Pod\n        name: p\n        uid: u\n  \
         tpl2:\n    apiVersion: v1\n    kind: Pod\n    metadata: {}\n"
    );
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    assert_eq!(output.status.code(), Some(0));
}
