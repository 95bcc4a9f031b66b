//! (a) The YAML loader and the span mapper: every span in the file, every character of
//! every string scalar mapped back to a char boundary, decoded text = loaded value.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        crdlint_fuzz::check_yaml(text);
    }
});
