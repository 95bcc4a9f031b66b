//! Schema semantics shared by CRD and custom-resource checks: the structural schema,
//! and (as they land) pruning, defaulting, value validation, list types, formats and
//! object meta.

pub mod correlate;
pub mod enum_index;
pub mod fieldpath;
pub mod formats;
pub mod listtype;
pub mod objectmeta;
pub mod property_index;
pub mod prune;
pub mod regex;
pub mod resource;
pub mod structural;
pub mod validate;

pub use resource::CODES;
