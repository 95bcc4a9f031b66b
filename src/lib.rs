//! crdlint: validate Kubernetes CustomResourceDefinitions and custom resources offline,
//! with the API server's verdicts and messages, pointing at lines and columns.

pub mod alloc;
pub mod cel;
pub mod check;
pub mod cli;
pub mod codes;
pub mod config;
pub mod crd;
pub mod diag;
pub mod dryrun;
pub mod model;
pub mod names;
pub mod report;
pub mod schema;
pub mod source;
