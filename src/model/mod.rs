//! Typed views of Kubernetes objects crdlint understands (CRDs and their schemas),
//! decoded from spanned documents the way the API server decodes them (strictly), and
//! keeping the spans of every keyword so later stages can point at them.

pub mod crd;
pub mod decode;
pub mod owner_ref;
pub mod schema;

/// The fields of `v1.ObjectMeta`, the type the server decodes the `metadata` of CRDs
/// and of custom resources into: any other field there is unknown.
pub const OBJECT_META_FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

crate::declare_codes! {
    DECODE_TYPE = "crd-wrong-type", Error, "A CRD field holds a JSON value of the wrong type; the server cannot decode the request";
    UNKNOWN_FIELD = "crd-unknown-field", Error, "A CRD field the API does not declare (rejected by strict field validation)";
}
