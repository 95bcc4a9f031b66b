//! Embeds docs/rules/*.md into the binary (for `crdlint rules CODE`) as a table generated
//! at build time, so a new rule page needs no registration anywhere.

use std::fmt::Write;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=docs/rules");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("docs/rules");
    let mut pages: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| {
                    let path = entry.path();
                    let code = path.file_name()?.to_str()?.strip_suffix(".md")?.to_string();
                    Some((code, path.display().to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    let mut out =
        String::from("/// `(code, page)` for every docs/rules/<code>.md, sorted by code.\n");
    out.push_str("pub static RULE_DOCS: &[(&str, &str)] = &[\n");
    for (code, path) in &pages {
        let _ = writeln!(out, "    ({code:?}, include_str!({path:?})),");
    }
    out.push_str("];\n");
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("rule_docs.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}
