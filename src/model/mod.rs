//! Typed views of Kubernetes objects crdlint understands (CRDs and their schemas),
//! decoded from spanned documents the way the API server decodes them (strictly), and
//! keeping the spans of every keyword so later stages can point at them.

pub mod crd;
pub mod decode;
pub mod owner_ref;
pub mod schema;

crate::declare_codes! {
    DECODE_TYPE = "crd-wrong-type", Error, "A CRD field holds a JSON value of the wrong type; the server cannot decode the request";
    UNKNOWN_FIELD = "crd-unknown-field", Error, "A CRD field the API does not declare (rejected by strict field validation)";
}
