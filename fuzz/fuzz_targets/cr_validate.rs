//! (d) The custom-resource pipeline (decode, prune, default, validate, CEL) on arbitrary
//! YAML against fixed CRDs; pruning idempotent, defaulting then pruning keeps defaults.
#![no_main]
use std::sync::{Arc, OnceLock};

use crdlint::check::resources::PreparedCrd;
use libfuzzer_sys::fuzz_target;

static CRDS: OnceLock<Vec<Arc<PreparedCrd>>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let crds = CRDS.get_or_init(crdlint_fuzz::prepared_crds);
    if let Ok(text) = std::str::from_utf8(data) {
        crdlint_fuzz::check_resources(crds, text);
    }
});
