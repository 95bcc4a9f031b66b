//! The streaming `check` pipeline (src/check/pipeline.rs): CRD files are found by a
//! text scan, other files are checked one by one; the result must not depend on that
//! shortcut, on where CRDs and resources sit, or on the number of threads.

use std::path::Path;

use assert_cmd::Command;

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 10}
"#;

fn gadget(name: &str, size: i64) -> String {
    format!(
        "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: {name}\nspec:\n  size: {size}\n"
    )
}

fn check(dir: &Path, args: &[&str], threads: &str) -> (String, i32) {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", threads)
        .args(["check", "-o", "short", "--no-config"])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap(),
    )
}

/// A CRD whose kind is spelled with a YAML escape is not found by the text scan; the
/// run notices it and starts over, so its resources are still checked.
#[test]
fn escaped_crd_kind_still_defines_the_kind() {
    let dir = tempfile::tempdir().unwrap();
    let escaped = CRD.replace(
        "kind: CustomResourceDefinition",
        "kind: \"Custom\\x52esourceDefinition\"",
    );
    assert!(!escaped.contains("CustomResourceDefinition"));
    std::fs::write(dir.path().join("a-crd.yaml"), escaped).unwrap();
    std::fs::write(dir.path().join("b-gadget.yaml"), gadget("big", 11)).unwrap();
    let (out, status) = check(dir.path(), &["."], "2");
    assert_eq!(
        out,
        "b-gadget.yaml:6:9: error[schema-violation]: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10\n\
         2 files, 2 documents (1 CRD, 1 custom resource): 1 error, 0 warnings\n"
    );
    assert_eq!(status, 1);
}

/// CRDs are prepared for resources only when some file mentions their kind (a text
/// scan); kinds the scan cannot read — an escape, an alias, a JSON resource or a List
/// in the CRD's own file — are noticed when the resource needs its CRD, and the run
/// starts over preparing every CRD, so those resources are still checked.
#[test]
fn resources_whose_kind_the_scan_misses_are_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "json"}, "spec": {"size": 15}}"#;
    std::fs::write(
        dir.path().join("a-crd.yaml"),
        format!(
            "{CRD}---
{json}
"
        ),
    )
    .unwrap();
    for (file, expected) in [
        ("b-escaped.yaml", gadget("escaped", 11).replace("kind: Gadget", "kind: \"G\\x61dget\"")),
        (
            "c-alias.yaml",
            "apiVersion: example.com/v1\nmetadata:\n  name: alias\n  labels: {k: &k Gadget}\nkind: *k\nspec:\n  size: 12\n".to_string(),
        ),
    ] {
        assert!(!expected.contains("kind: Gadget"));
        std::fs::write(dir.path().join(file), expected).unwrap();
    }
    let (out, status) = check(dir.path(), &["."], "2");
    assert_eq!(
        out,
        "a-crd.yaml:22:99: error[schema-violation]: spec.size: Invalid value: 15: spec.size in body should be less than or equal to 10\n\
         b-escaped.yaml:6:9: error[schema-violation]: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10\n\
         c-alias.yaml:7:9: error[schema-violation]: spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10\n\
         3 files, 4 documents (1 CRD, 3 custom resources): 3 errors, 0 warnings\n"
    );
    assert_eq!(status, 1);
}

/// More distinct kinds than the kind scan keeps (10,000) make it give up and prepare
/// every CRD: resources are still checked, and the scan's memory stays bounded.
#[test]
fn a_flood_of_distinct_kinds_still_checks_resources() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a-crd.yaml"), CRD).unwrap();
    let items: String = (0..10_001)
        .map(|i| format!("  - {{kind: Made{i}, apiVersion: v1}}\n"))
        .collect();
    let flood = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flood\ndata:\n  x: y\nz:\n{items}"
    );
    std::fs::write(dir.path().join("b-flood.yaml"), flood).unwrap();
    std::fs::write(dir.path().join("c-gadget.yaml"), gadget("big", 11)).unwrap();
    let (out, status) = check(dir.path(), &["."], "2");
    assert_eq!(
        out,
        "c-gadget.yaml:6:9: error[schema-violation]: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10\n\
         3 files, 3 documents (1 CRD, 1 custom resource): 1 error, 0 warnings\n"
    );
    assert_eq!(status, 1);
}

/// Resources in the CRD's own file, before and after it, and in other files before
/// and after it in walk order, all resolve; output is the same on 1 and 2 threads.
#[test]
fn resources_resolve_wherever_they_are_and_output_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = format!(
        "{}---\n{CRD}---\n{}",
        gadget("before", 12),
        gadget("after", 1)
    );
    std::fs::write(dir.path().join("m-mixed.yaml"), mixed).unwrap();
    std::fs::write(dir.path().join("a-early.yaml"), gadget("early", 13)).unwrap();
    std::fs::write(dir.path().join("z-late.yaml"), gadget("late", 14)).unwrap();
    let expected = "a-early.yaml:6:9: error[schema-violation]: spec.size: Invalid value: 13: spec.size in body should be less than or equal to 10\n\
         m-mixed.yaml:6:9: error[schema-violation]: spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10\n\
         z-late.yaml:6:9: error[schema-violation]: spec.size: Invalid value: 14: spec.size in body should be less than or equal to 10\n\
         3 files, 5 documents (1 CRD, 4 custom resources): 3 errors, 0 warnings\n";
    for threads in ["1", "2"] {
        let (out, status) = check(dir.path(), &["."], threads);
        assert_eq!(out, expected, "RAYON_NUM_THREADS={threads}");
        assert_eq!(status, 1);
    }
}

/// CRDs given with --crds resolve resources without being reported or counted; a
/// --crds file without CRDs is still read (its YAML errors are reported).
#[test]
fn crds_sources_resolve_resources_without_being_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("vendor")).unwrap();
    std::fs::write(dir.path().join("vendor/crd.yaml"), CRD).unwrap();
    std::fs::write(dir.path().join("vendor/broken.yaml"), "a: [\n").unwrap();
    std::fs::write(dir.path().join("gadget.yaml"), gadget("ok", 3)).unwrap();
    let (out, status) = check(dir.path(), &["--crds", "vendor", "gadget.yaml"], "2");
    assert_eq!(
        out,
        "vendor/broken.yaml:1:5: error[yaml-syntax]: while parsing a node, did not find expected node content\n\
         1 file, 1 document (0 CRDs, 1 custom resource): 1 error, 0 warnings\n"
    );
    assert_eq!(status, 1);
}

/// The read pass keeps texts within budgets, and the CRD pass drops a CRD file's text
/// when no finding points into it (a late `duplicate-crd` reads it back). Findings and
/// their positions must not depend on either: here every text is read twice (budgets
/// of zero) and compared with the default run.
#[test]
fn texts_read_again_or_dropped_give_the_same_findings() {
    use crdlint::check::{CheckOptions, KeptText, run};
    use crdlint::report::{Format, render};

    let dir = tempfile::tempdir().unwrap();
    let widgets = CRD
        .replace("gadgets", "widgets")
        .replace("Gadget", "Widget");
    let files = [
        // A finding of its own: its text stays.
        ("a.yaml", CRD.replace("Namespaced", "Sideways")),
        // Clean, so dropped; a second definition of a.yaml's CRD reads it back.
        ("b.yaml", CRD.to_string()),
        // Clean, so dropped; the second definition points back into the same file.
        ("c.yaml", format!("{widgets}---\n{widgets}")),
        // A resource next to its CRD keeps the text for the check pass.
        (
            "d.yaml",
            format!(
                "{}---\n{}",
                CRD.replace("gadgets.", "things.")
                    .replace("Gadget", "Thing")
                    .replace("gadgets", "things"),
                gadget("g", 11).replace("Gadget", "Thing")
            ),
        ),
        // Resources in a file of their own.
        ("e.yaml", gadget("big", 12)),
    ];
    let mut paths = Vec::new();
    for (name, text) in &files {
        std::fs::write(dir.path().join(name), text).unwrap();
        paths.push(dir.path().join(name));
    }
    let outputs: Vec<(String, String, String)> =
        [KeptText::default(), KeptText { crds: 0, others: 0 }]
            .into_iter()
            .map(|kept_text| {
                let result = run(&CheckOptions {
                    paths: paths.clone(),
                    kept_text,
                    ..CheckOptions::default()
                });
                let short = render(Format::Short, &result.diagnostics, &result.summary, false);
                let json = render(Format::Json, &result.diagnostics, &result.summary, false);
                let human = render(Format::Human, &result.diagnostics, &result.summary, false);
                (
                    short.replace(&format!("{}/", dir.path().display()), ""),
                    json,
                    human,
                )
            })
            .collect();
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(
        outputs[1].0,
        "a.yaml:8:10: error[crd-scope]: spec.scope: Unsupported value: \"Sideways\": supported values: \"Cluster\", \"Namespaced\"\n\
         b.yaml:4:9: warning[duplicate-crd]: CustomResourceDefinition \"gadgets.example.com\" is defined more than once; this definition replaces the one in a.yaml\n\
         c.yaml:25:9: warning[duplicate-crd]: CustomResourceDefinition \"widgets.example.com\" is defined more than once; this definition replaces the one in c.yaml\n\
         d.yaml:27:9: error[schema-violation]: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10\n\
         e.yaml:6:9: error[schema-violation]: spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10\n\
         5 files, 7 documents (5 CRDs, 2 custom resources): 3 errors, 2 warnings\n"
    );
    // The second definition in c.yaml points back at the first, shown from the text
    // read back.
    let human = &outputs[1].2;
    let at = human.find("first defined here").expect(human);
    assert!(
        human[..at].contains("4 │   name: widgets.example.com"),
        "{human}"
    );
}
