//! Structural schemas handed from CRD validation to resource preparation.

use std::sync::Mutex;

use super::Structural;
use crate::model::schema::SchemaProps;

/// Structural schemas built by CRD validation, by the model schema they were built
/// from, so that preparing the same decoded CRD for resources does not convert them
/// again.
#[derive(Default)]
pub struct StructuralSink(Mutex<Vec<(usize, Structural)>>);

impl StructuralSink {
    // The caller decodes the CRD model once, before validation, and keeps it alive and
    // unmoved until preparation: its schemas' addresses then identify them. (A schema
    // validation builds and frees on the way cannot share an address with a live schema
    // of the model, so a stray entry is never taken.)
    fn key(schema: &SchemaProps) -> usize {
        schema as *const _ as usize
    }

    pub fn put(&self, schema: &SchemaProps, structural: Structural) {
        if let Ok(mut built) = self.0.lock() {
            built.push((Self::key(schema), structural));
        }
    }

    /// The structural schema built from `schema`, taken out of the sink.
    pub fn take(&self, schema: &SchemaProps) -> Option<Structural> {
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
            type_: Some(ty.to_string()),
            ..SchemaProps::default()
        }
    }

    #[test]
    fn hands_each_schema_its_own_structural_once() {
        let (a, b, c) = (props("object"), props("string"), props("integer"));
        let sink = StructuralSink::default();
        sink.put(&a, super::super::from_props(&a).unwrap());
        sink.put(&b, super::super::from_props(&b).unwrap());
        assert_eq!(sink.take(&b).unwrap().generic.type_, "string");
        assert_eq!(sink.take(&a).unwrap().generic.type_, "object");
        assert!(sink.take(&a).is_none());
        assert!(sink.take(&c).is_none());
    }
}
