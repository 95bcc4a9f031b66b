//! Schema semantics shared by CRD and custom-resource checks: the structural schema,
//! and (as they land) pruning, defaulting, value validation, list types, formats and
//! object meta.

pub mod regex;
pub mod structural;

pub const CODES: &[crate::diag::CodeInfo] = &[];
