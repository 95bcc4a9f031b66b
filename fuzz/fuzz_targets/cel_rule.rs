//! (c) CEL parse + type-check (+ evaluation with the runtime cost limit) of an arbitrary
//! rule and messageExpression against a fixed schema.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(rule) = std::str::from_utf8(data) {
        crdlint_fuzz::check_cel_rule(rule);
    }
});
