//! Structural schemas (and their compiled CEL rules) handed from CRD validation to
//! resource preparation.

use std::sync::Mutex;

use super::Structural;
use crate::cel::{KubeVersion, RuleCompileResult};
use crate::model::schema::SchemaProps;

/// What CRD validation built from one version schema.
pub struct Built {
    pub structural: Structural,
    /// Its rules compiled as [`crate::cel::compile_rules`] compiles them for a server
    /// of this version, when validation compiled them that way (not on a CRD update,
    /// whose stored expressions compile in another environment).
    pub rules: Option<(KubeVersion, Vec<RuleCompileResult>)>,
}

/// Structural schemas built by CRD validation, by the model schema they were built
/// from, so that preparing the same decoded CRD for resources does not convert them
/// (or compile their rules) again.
#[derive(Default)]
pub struct StructuralSink(Mutex<Vec<(usize, Built)>>);

impl StructuralSink {
    // The caller decodes the CRD model once, before validation, and keeps it alive and
    // unmoved until preparation: its schemas' addresses then identify them. (A schema
    // validation builds and frees on the way cannot share an address with a live schema
    // of the model, so a stray entry is never taken.)
    fn key(schema: &SchemaProps) -> usize {
        schema as *const _ as usize
    }

    pub fn put(&self, schema: &SchemaProps, structural: Built) {
        if let Ok(mut built) = self.0.lock() {
            built.push((Self::key(schema), structural));
        }
    }

    /// What was built from `schema`, taken out of the sink.
    pub fn take(&self, schema: &SchemaProps) -> Option<Built> {
        let key = Self::key(schema);
        let mut built = self.0.lock().ok()?;
        let at = built.iter().position(|(k, _)| *k == key)?;
        Some(built.swap_remove(at).1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(ty: &str) -> SchemaProps {
        SchemaProps {
            type_: Some(ty.to_string().into()),
            ..SchemaProps::default()
        }
    }

    #[test]
    fn hands_each_schema_its_own_structural_once() {
        let (a, b, c) = (props("object"), props("string"), props("integer"));
        let sink = StructuralSink::default();
        let built = |p: &SchemaProps| Built {
            structural: super::super::from_props(p).unwrap(),
            rules: None,
        };
        sink.put(&a, built(&a));
        sink.put(&b, built(&b));
        assert_eq!(sink.take(&b).unwrap().structural.generic.type_, "string");
        assert_eq!(sink.take(&a).unwrap().structural.generic.type_, "object");
        assert!(sink.take(&a).is_none());
        assert!(sink.take(&c).is_none());
    }
}
