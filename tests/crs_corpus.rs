//! The real-world corpus (`../shared/corpus`): every custom resource in `crs/` must
//! pass against its project's CRDs with zero errors, and every file in `invalid-real/`
//! and `invalid-crs/` must be rejected; messages are compared with the recorded
//! server answers and the match rate is printed.
//!
//! Documents are read through the YAML loader when it is available; until then the
//! test reads a JSON rendering of the corpus from `$CRDLINT_CORPUS_JSON` (made by a
//! YAML 1.1 converter). Without either, the test says so and skips.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crdlint::cel::KubeVersion;
use crdlint::check::resources::PreparedCrd;
use crdlint::model::crd;
use crdlint::schema::resource::UnknownFields;
use crdlint::source::{Node, Span};

struct Corpus {
    /// Where documents are read from, and whether they are JSON renderings.
    root: PathBuf,
    json: bool,
}

impl Corpus {
    fn open() -> Option<Corpus> {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
        let corpus = if corpus.exists() {
            corpus
        } else {
            PathBuf::from("/work/shared/corpus")
        };
        if !corpus.exists() {
            eprintln!("SKIP: corpus not found at ../shared/corpus");
            return None;
        }
        let probe = crdlint::source::yaml::parse("a: 1\n", &Default::default());
        if !probe.documents.is_empty() {
            return Some(Corpus {
                root: corpus,
                json: false,
            });
        }
        match std::env::var_os("CRDLINT_CORPUS_JSON") {
            Some(dir) => Some(Corpus {
                root: PathBuf::from(dir),
                json: true,
            }),
            None => {
                eprintln!(
                    "SKIP: the YAML loader is not available yet and CRDLINT_CORPUS_JSON is not set"
                );
                None
            }
        }
    }

    /// All documents of the files under `dir` (relative to the corpus), by file.
    fn documents(&self, dir: &str) -> Vec<(String, Vec<Node>)> {
        let mut out = Vec::new();
        let base = self.root.join(dir);
        let mut stack = vec![base.clone()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = fs::read_dir(&d) else {
                continue;
            };
            for e in entries.filter_map(Result::ok) {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let name = p.to_string_lossy().to_string();
                let rel = p
                    .strip_prefix(&self.root)
                    .map(|r| r.to_string_lossy().to_string())
                    .unwrap_or(name.clone());
                if self.json && name.ends_with(".json") {
                    let text = fs::read_to_string(&p).unwrap_or_default();
                    let docs: Vec<serde_json::Value> =
                        serde_json::from_str(&text).unwrap_or_default();
                    let rel = rel.trim_end_matches(".json").to_string();
                    out.push((
                        rel,
                        docs.iter()
                            .map(|d| Node::from_json(d, Span::default()))
                            .collect(),
                    ));
                } else if !self.json && (name.ends_with(".yaml") || name.ends_with(".yml")) {
                    let text = fs::read_to_string(&p).unwrap_or_default();
                    let parsed = crdlint::source::yaml::parse(&text, &Default::default());
                    let mut docs: Vec<Node> =
                        parsed.documents.into_iter().map(|d| d.root).collect();
                    // A loader error (e.g. a duplicate key) rejects the file: carry its
                    // message as a document that is not an object.
                    for e in parsed.errors {
                        docs.push(Node::from_json(
                            &serde_json::Value::String(format!("YAML: {}", e.message)),
                            Span::default(),
                        ));
                    }
                    out.push((rel, docs));
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The CRDs of `dirs`, prepared as `crdlint check` prepares them (CEL included).
    fn registry(&self, dirs: &[&str]) -> Vec<PreparedCrd> {
        let mut out = Vec::new();
        for dir in dirs {
            for (file, docs) in self.documents(&format!("crds/{dir}")) {
                for doc in docs {
                    let (_, diags) = crd::decode(&doc);
                    assert!(
                        diags.is_empty(),
                        "{file}: CRD does not decode: {:?}",
                        diags[0].message
                    );
                    out.push(PreparedCrd::new(&doc, KubeVersion::NEWEST));
                }
            }
        }
        out
    }
}

fn crd_dirs(project: &str) -> Vec<&str> {
    match project {
        "envoy-gateway" => vec!["envoy-gateway", "gateway-api-experimental"],
        "flux-kustomize-controller" => vec!["flux-kustomize-controller", "flux-source-controller"],
        "jobset" => vec!["jobset", "kueue"],
        p => vec![p],
    }
}

/// Messages for one document (errors only).
fn check(registry: &[PreparedCrd], doc: &Node) -> Result<Vec<String>, String> {
    if let Some(yaml_error) = doc.as_str() {
        return Err(yaml_error.to_string());
    }
    let api_version = doc.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    let kind = doc.get("kind").and_then(Node::as_str).unwrap_or("");
    let Some(c) = registry
        .iter()
        .find(|c| c.compiled.matches(api_version, kind))
    else {
        return Err(format!("no CRD for {api_version} {kind}"));
    };
    let outcome = c.outcome(doc, UnknownFields::Error);
    Ok(outcome
        .diagnostics
        .iter()
        .filter(|d| d.severity == crdlint::diag::Severity::Error)
        .map(|d| d.message.clone())
        .collect())
}

const PROJECTS: &[&str] = &[
    "argo-cd",
    "cert-manager",
    "cilium",
    "crossplane",
    "envoy-gateway",
    "flux-kustomize-controller",
    "flux-source-controller",
    "gateway-api-experimental",
    "gateway-api-standard",
    "istio",
    "jobset",
    "keda",
    "knative-serving",
    "kueue",
    "kyverno",
    "opentelemetry-operator",
    "prometheus-operator",
    "strimzi",
    "tekton-pipeline",
];

#[test]
fn corpus_resources_validate_without_errors() {
    let Some(corpus) = Corpus::open() else {
        return;
    };
    let mut total = 0;
    let mut failures = Vec::new();
    for project in PROJECTS {
        let registry = corpus.registry(&crd_dirs(project));
        for (file, docs) in corpus.documents(&format!("crs/{project}")) {
            for (i, doc) in docs.iter().enumerate() {
                total += 1;
                match check(&registry, doc) {
                    Ok(errors) if errors.is_empty() => {}
                    Ok(errors) => failures.push(format!("{file}#{i}: {}", errors.join(" | "))),
                    Err(e) => failures.push(format!("{file}#{i}: {e}")),
                }
            }
        }
    }
    eprintln!("corpus: {total} resources, {} with errors", failures.len());
    assert_eq!(total, 821, "expected the 821 corpus resources");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn expected_real(corpus_root: &Path) -> BTreeMap<String, Vec<String>> {
    let path = corpus_root.join("invalid-real/expected.json");
    let text = fs::read_to_string(path).unwrap_or_default();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let mut out = BTreeMap::new();
    for (file, entries) in json.as_object().into_iter().flatten() {
        let mut msgs = Vec::new();
        for e in entries.as_array().into_iter().flatten() {
            for err in e["errors"].as_array().into_iter().flatten() {
                msgs.push(err["error"].as_str().unwrap_or("").to_string());
            }
            for p in e["pruned"].as_array().into_iter().flatten() {
                msgs.push(format!("unknown field \"{}\"", p.as_str().unwrap_or("")));
            }
        }
        out.insert(file.clone(), msgs);
    }
    out
}

fn expected_invalid_crs(corpus_root: &Path) -> BTreeMap<String, Vec<String>> {
    let path = corpus_root.join("invalid-crs/expected-errors.json");
    let text = fs::read_to_string(path).unwrap_or_default();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let mut out = BTreeMap::new();
    for (file, statuses) in json.as_object().into_iter().flatten() {
        let mut msgs = Vec::new();
        for st in statuses.as_array().into_iter().flatten() {
            for c in st["details"]["causes"].as_array().into_iter().flatten() {
                let field = c["field"].as_str().unwrap_or("");
                let message = c["message"].as_str().unwrap_or("");
                msgs.push(format!("{field}: {message}"));
            }
        }
        out.insert(file.clone(), msgs);
    }
    out
}

/// Messages compared modulo how Kubernetes versions render values: 1.32 printed a
/// null as `"null"`, maps in Go syntax (`map[string]interface {}{"k":"v"}`) and the
/// type name of an object or array a CEL rule rejected (`Invalid value: "object": `)
/// where current servers print JSON and omit the value.
fn normalize(m: &str) -> String {
    m.replace(
        "Invalid value: \"null\": some validation",
        "Invalid value: null: some validation",
    )
    .replace("map[string]interface {}{", "{")
    .replace("Invalid value: \"object\": ", "Invalid value: ")
    .replace("Invalid value: \"array\": ", "Invalid value: ")
}

fn rejection_report(
    name: &str,
    corpus: &Corpus,
    expected: BTreeMap<String, Vec<String>>,
    project_of: impl Fn(&str) -> String,
) {
    let mut rejected = 0;
    let mut files = 0;
    let mut expected_total = 0;
    let mut matched = 0;
    let mut first_matched = 0;
    let mut missed = Vec::new();
    for (file, want) in &expected {
        let project = project_of(file);
        let registry = corpus.registry(&crd_dirs(&project));
        let docs: Vec<Node> = corpus
            .documents(file.rsplit_once('/').map(|(d, _)| d).unwrap_or(""))
            .into_iter()
            .filter(|(f, _)| f == file)
            .flat_map(|(_, d)| d)
            .collect();
        if docs.is_empty() {
            continue;
        }
        files += 1;
        let mut got = Vec::new();
        for doc in &docs {
            match check(&registry, doc) {
                Ok(errors) => got.extend(errors),
                Err(e) => got.push(e),
            }
        }
        if !got.is_empty() {
            rejected += 1;
        } else {
            missed.push(format!("{file}: accepted (server: {})", want.join(" | ")));
        }
        let got_norm: Vec<String> = got.iter().map(|m| normalize(m)).collect();
        let want: Vec<&String> = want
            .iter()
            .filter(|w| {
                !w.contains("some validation rules were not checked")
                    || got_norm.iter().any(|g| g.contains("some validation rules"))
            })
            .collect();
        expected_total += want.len();
        let mut first = true;
        for w in want {
            if got_norm.contains(&normalize(w)) {
                matched += 1;
                if first {
                    first_matched += 1;
                }
            } else {
                eprintln!("  {file}: server says {w:?}, crdlint did not");
            }
            first = false;
        }
    }
    eprintln!(
        "{name}: {rejected}/{files} files rejected; {matched}/{expected_total} server messages reproduced exactly; first message matched in {first_matched}/{files} files"
    );
    for m in &missed {
        eprintln!("  {m}");
    }
}

#[test]
fn invalid_corpus_files_are_rejected() {
    let Some(corpus) = Corpus::open() else {
        return;
    };
    let real_root = Path::new("/work/shared/corpus");
    let real = expected_real(real_root);
    rejection_report("invalid-real", &corpus, real, |f| {
        f.split('/').nth(1).unwrap_or("").to_string()
    });
    let crs = expected_invalid_crs(real_root);
    rejection_report("invalid-crs", &corpus, crs, |f| {
        f.split('/').nth(1).unwrap_or("").to_string()
    });
}
