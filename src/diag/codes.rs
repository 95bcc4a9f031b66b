//! The code registry: every diagnostic code with its default severity and a one-line
//! summary. Each module declares its own codes with [`declare_codes!`]; `crate::codes`
//! gathers them so docs and `crdlint rules` can enumerate all of them.

use super::Severity;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    pub code: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

/// Declares code constants and a `CODES` table in the calling module:
///
/// ```ignore
/// declare_codes! {
///     YAML_SYNTAX = "yaml-syntax", Error, "The file is not valid YAML or JSON";
/// }
/// ```
#[macro_export]
macro_rules! declare_codes {
    ($( $ident:ident = $code:literal, $severity:ident, $summary:literal; )*) => {
        $( pub const $ident: &str = $code; )*
        pub const CODES: &[$crate::diag::CodeInfo] = &[
            $( $crate::diag::CodeInfo {
                code: $code,
                severity: $crate::diag::Severity::$severity,
                summary: $summary,
            }, )*
        ];
    };
}
