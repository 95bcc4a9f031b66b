#[test]
fn dump() {
    let Ok(dir) = std::env::var("CRDLINT_DUMP_DIR") else {
        return;
    };
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    entries.sort();
    let mut out = String::new();
    for p in entries {
        let text = std::fs::read_to_string(&p).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let node = crdlint::source::Node::from_json(&v, Default::default());
        for d in crdlint::crd::validate(&node) {
            out.push_str(&serde_json::json!({"file": p.file_stem().unwrap().to_string_lossy(), "sev": d.severity.as_str(), "code": d.code, "field": d.field, "reason": d.reason, "message": d.message}).to_string());
            out.push('\n');
        }
    }
    std::fs::write(format!("{dir}/ours.jsonl"), out).unwrap();
}
