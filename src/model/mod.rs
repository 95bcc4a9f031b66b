//! Typed views of Kubernetes objects crdlint understands (CRDs and their schemas),
//! decoded from spanned documents the way the API server decodes them (strictly), and
//! keeping the spans of every keyword so later stages can point at them.

pub mod schema;
