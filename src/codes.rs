//! Every diagnostic code crdlint can emit, gathered from the modules that declare them.

use crate::diag::CodeInfo;

/// All codes, in a stable order (by module, then declaration).
pub fn all() -> Vec<&'static CodeInfo> {
    [
        crate::source::CODES,
        crate::diag::budget::CODES,
        crate::model::CODES,
        crate::check::CODES,
        crate::check::suppress::CODES,
        crate::check::request_size::CODES,
        crate::crd::CODES,
        crate::schema::CODES,
        crate::cel::CODES,
        crate::cel::cost::CODES,
    ]
    .into_iter()
    .flatten()
    .collect()
}

pub fn find(code: &str) -> Option<&'static CodeInfo> {
    all().into_iter().find(|info| info.code == code)
}
