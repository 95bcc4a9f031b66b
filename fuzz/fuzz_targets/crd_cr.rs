//! (e) Custom resources against the CRDs of the same input: the resource pipeline on
//! any schema `check` may meet (target (d) fixes its CRDs), and CRDs prepared from
//! validation's structural schemas against CRDs prepared from scratch.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        crdlint_fuzz::check_crds_and_resources(text);
    }
});
