//! The value a failed `x-kubernetes-validations` rule reports changed in Kubernetes 1.35
//! (apiextensions-apiserver v0.35): before, the node's schema type
//! (`Invalid value: "object": failed rule: …`, `"integer"`, `""` for int-or-string);
//! from 1.35, the value itself, or none for objects and arrays. The 1.34 lines are the
//! 1.32 server's answers for these files (apiextensions v0.32.2, through kubectl-validate's
//! custom-resource path; v0.34 still passed the type); the 1.35 lines are the messages
//! of the other custom-resource fixtures (recorded against v0.35).

use assert_cmd::Command;

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
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
            x-kubernetes-validations:
            - rule: self.replicas < 3
            properties:
              replicas:
                type: integer
                x-kubernetes-validations:
                - rule: self < 2
                  message: too many
              name:
                type: string
                x-kubernetes-validations:
                - rule: self != 'x'
                  reason: FieldValueDuplicate
              port:
                x-kubernetes-int-or-string: true
                x-kubernetes-validations:
                - rule: type(self) == int
              tags:
                type: array
                items: {type: string}
                x-kubernetes-validations:
                - rule: self.size() < 1
";

const CR: &str = "apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec:
  replicas: 5
  name: x
  port: \"80\"
  tags: [a]
";

fn check(version: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("crd.yaml"), CRD).unwrap();
    std::fs::write(dir.path().join("cr.yaml"), CR).unwrap();
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "check",
            "--no-config",
            "-o",
            "short",
            "--kube-version",
            version,
        ])
        .args(["--crds", "crd.yaml", "cr.yaml"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("cr.yaml:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn servers_before_1_35_report_the_schema_type() {
    assert_eq!(
        check("1.34"),
        [
            r#"cr.yaml:5:3: error[cel-rule-failed]: spec: Invalid value: "object": failed rule: self.replicas < 3"#,
            r#"cr.yaml:5:13: error[cel-rule-failed]: spec.replicas: Invalid value: "integer": too many"#,
            r#"cr.yaml:6:9: error[cel-rule-failed]: spec.name: Duplicate value: "string""#,
            r#"cr.yaml:7:9: error[cel-rule-failed]: spec.port: Invalid value: "": failed rule: type(self) == int"#,
            r#"cr.yaml:8:9: error[cel-rule-failed]: spec.tags: Invalid value: "array": failed rule: self.size() < 1"#,
        ]
    );
}

#[test]
fn servers_from_1_35_report_the_value() {
    assert_eq!(
        check("1.35"),
        [
            r#"cr.yaml:5:3: error[cel-rule-failed]: spec: Invalid value: failed rule: self.replicas < 3"#,
            r#"cr.yaml:5:13: error[cel-rule-failed]: spec.replicas: Invalid value: 5: too many"#,
            r#"cr.yaml:6:9: error[cel-rule-failed]: spec.name: Duplicate value: "x""#,
            r#"cr.yaml:7:9: error[cel-rule-failed]: spec.port: Invalid value: "80": failed rule: type(self) == int"#,
            r#"cr.yaml:8:9: error[cel-rule-failed]: spec.tags: Invalid value: failed rule: self.size() < 1"#,
        ]
    );
    assert_eq!(check("1.36"), check("1.35"));
}
