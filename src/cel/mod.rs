//! CEL for `x-kubernetes-validations`: parsing (behind [`parse`]), types, the type
//! checker, the Kubernetes environment, declared types from structural schemas, rule
//! compilation and evaluation.

pub mod ast;
pub mod errors;
pub mod env;
pub mod parse;
pub mod types;

pub const CODES: &[crate::diag::CodeInfo] = &[];
