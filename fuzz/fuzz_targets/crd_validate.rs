//! (b) CRD validation of arbitrary YAML (seeded with the CRD fixtures and corpus CRDs),
//! as a create and as an update of the first document,
//! with every finding rendered in every output format.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        crdlint_fuzz::check_crd(text);
    }
});
