//! (module under construction)

pub const CODES: &[crate::diag::CodeInfo] = &[];
