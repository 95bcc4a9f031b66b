//! Kubernetes 1.36 (apiextensions-apiserver 0.36) keeps `example` and `externalDocs`
//! in the structural schema's generic fields; 1.35 dropped them when converting. Two
//! structural rules compare a schema with an otherwise empty one and so see them from
//! 1.36 on: the root `metadata` schema (only `name` and `generateName` may be
//! restricted) and the int-or-string `anyOf: [{type: integer}, {type: string}]` pair.
//! Read from apiextensions-apiserver v0.35.0 and v0.36.3 (schema/convert.go newGenerics,
//! schema/validation.go): 1.35's conversion leaves both fields out, 1.36's keeps them
//! and ValidateStructural's `reflect.DeepEqual` comparisons then fail with the texts
//! below.

use crdlint::cel::KubeVersion;
use crdlint::source::yaml;

fn crd(properties: &str) -> String {
    format!(
        r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
{properties}"#
    )
}

fn messages(text: &str, version: KubeVersion) -> Vec<String> {
    let root = yaml::parse(text, &Default::default())
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

const METADATA: &str = r#"          metadata:
            type: object
            example: {name: x}
            properties:
              name: {type: string, maxLength: 10}
"#;

const METADATA_DOCS: &str = r#"          metadata:
            type: object
            externalDocs: {}
"#;

const INT_OR_STRING: &str = r#"          port:
            x-kubernetes-int-or-string: true
            anyOf:
            - type: integer
              example: 80
            - type: string
"#;

const NULLS: &str = r#"          metadata:
            type: object
            example: null
            externalDocs: null
          port:
            x-kubernetes-int-or-string: true
            anyOf:
            - type: integer
              example: null
            - type: string
"#;

#[test]
fn kubernetes_1_35_drops_examples_and_external_docs() {
    for properties in [METADATA, METADATA_DOCS, INT_OR_STRING, NULLS] {
        assert_eq!(
            messages(&crd(properties), KubeVersion::new(1, 35)),
            Vec::<String>::new()
        );
    }
}

#[test]
fn kubernetes_1_36_counts_them_in_root_metadata() {
    let forbidden = "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified";
    assert_eq!(
        messages(&crd(METADATA), KubeVersion::new(1, 36)),
        [forbidden]
    );
    assert_eq!(
        messages(&crd(METADATA_DOCS), KubeVersion::new(1, 36)),
        [forbidden]
    );
}

#[test]
fn kubernetes_1_36_counts_them_in_the_int_or_string_pair() {
    assert_eq!(
        messages(&crd(INT_OR_STRING), KubeVersion::new(1, 36)),
        [
            "spec.validation.openAPIV3Schema.properties[port].anyOf[0].type: Forbidden: must be empty to be structural",
            "spec.validation.openAPIV3Schema.properties[port].anyOf[1].type: Forbidden: must be empty to be structural",
        ]
    );
}

#[test]
fn null_examples_and_docs_are_absent_in_every_version() {
    assert_eq!(
        messages(&crd(NULLS), KubeVersion::new(1, 36)),
        Vec::<String>::new()
    );
}
