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
    fn key(schema: &SchemaProps) -> usize {
        // The model outlives the sink's use, so its schemas' addresses identify them.
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
