//! kube-openapi's number validator learned the schema's type in Kubernetes 1.36
//! (kube-openapi 1d94e88): an `integer` schema's bound that is not an integer is then
//! an error of its own and compared as a float. 1.35 compares natively: `int64(0.5)`
//! is 0. The 1.35 messages were recorded with crdoracle (apiextensions v0.35).

use crdlint::cel::KubeVersion;
use crdlint::source::yaml;

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
              replicas:
                type: integer
                minimum: 0.5
                default: -1
"#;

fn messages(version: KubeVersion) -> Vec<String> {
    let root = yaml::parse(CRD, &Default::default())
        .documents
        .remove(0)
        .root;
    let options = crdlint::crd::Options {
        kube_version: version,
        ..Default::default()
    };
    crdlint::crd::validate_with_options(&root, &options)
        .into_iter()
        .map(|d| d.message)
        .collect()
}

#[test]
fn kubernetes_1_35_truncates_the_bound() {
    assert_eq!(
        messages(KubeVersion::new(1, 35)),
        [
            "spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: -1:  in body should be greater than or equal to 0"
        ]
    );
}

#[test]
fn kubernetes_1_36_reports_the_bound_type() {
    assert_eq!(
        messages(KubeVersion::new(1, 36)),
        [
            "spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: \"\": Minimum boundary value must be of type integer (default format) in ",
            "spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: -1:  in body should be greater than or equal to 0.5",
        ]
    );
}
