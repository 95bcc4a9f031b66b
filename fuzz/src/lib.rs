//! Invariants shared by the fuzz targets. Every check panics with a message that says
//! which invariant broke, so a crash report names the bug.
//!
//! The targets are thin: each turns bytes into text and calls one `check_*` function
//! here, so a crashing input can be replayed from a plain test (`tests/regressions.rs`
//! in the main crate holds the minimized ones).

use std::sync::Arc;

use crdlint::cel::{self, KubeVersion};
use crdlint::check::Summary;
use crdlint::check::resources::PreparedCrd;
use crdlint::diag::{Diagnostic, FieldPath};
use crdlint::schema::resource::UnknownFields;
use crdlint::schema::structural::{self, Structural};
use crdlint::source::inner::{decode_with_offsets, offset_in_scalar};
use crdlint::source::yaml::{self, Limits};
use crdlint::source::{Node, ScalarStyle, SourceFile, Span, Value};

/// Panics unless `offset` lies inside `text` (the end counts) on a char boundary.
pub fn assert_offset(text: &str, offset: usize, what: &str) {
    assert!(
        offset <= text.len(),
        "{what}: offset {offset} past the end of a {}-byte text",
        text.len()
    );
    assert!(
        text.is_char_boundary(offset),
        "{what}: offset {offset} is inside a UTF-8 character"
    );
}

/// Panics unless `span` is a well-formed range of `text`.
pub fn assert_span(text: &str, span: Span, what: &str) {
    assert!(span.start <= span.end, "{what}: span {span:?} is reversed");
    assert_offset(text, span.start, what);
    assert_offset(text, span.end, what);
}

/// Every span of a diagnostic (main and related labels) lies in `text`.
pub fn assert_diagnostic(text: &str, d: &Diagnostic) {
    if let Some(span) = d.span {
        assert_span(
            text,
            span,
            &format!("diagnostic {} ({})", d.code, d.message),
        );
    }
    for label in &d.related {
        assert_span(text, label.span, &format!("related label of {}", d.code));
    }
}

/// How many characters of each string scalar are mapped one by one (all of them for
/// short strings; the first ones and the end for long ones, to keep executions fast).
const MAPPED_CHARS: usize = 512;

/// Every node and key span of a tree lies in `text`, and every character of every
/// string scalar maps back to a char boundary of `text`.
pub fn assert_tree(text: &str, root: &Node) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        assert_span(text, node.span, "node span");
        match &node.value {
            Value::Object(map) => {
                for e in &map.entries {
                    assert_span(text, e.key_span, "key span");
                    stack.push(&e.value);
                }
            }
            Value::Array(items) => stack.extend(items.iter()),
            Value::String(s) if node.style != ScalarStyle::NotScalar => {
                assert_scalar_offsets(text, node, s, std::ptr::eq(node, root));
            }
            _ => {}
        }
    }
}

fn assert_scalar_offsets(text: &str, node: &Node, value: &str, is_root: bool) {
    let Some((decoded, offsets, end)) = decode_with_offsets(text, node.span, node.style) else {
        return;
    };
    let chars = decoded.chars().count();
    assert_eq!(chars, offsets.len(), "one offset per decoded character");
    assert_offset(text, end, "end of scalar content");
    for ((i, &offset), c) in offsets.iter().enumerate().zip(decoded.chars()) {
        assert_offset(text, offset, "decoded character offset");
        // A block scalar's span ends at its last non-blank character; the trailing
        // blanks and line breaks it keeps map after it.
        let inside = offset >= node.span.start
            && (offset < node.span.end || (c.is_whitespace() && offset <= text.len()));
        assert!(
            inside,
            "character {i} ({c:?}) maps to {offset}, outside its scalar {:?}",
            node.span
        );
    }
    // `!!binary` scalars decode to something else than their text; everything else
    // must decode to the value the loader produced.
    let tagged = text[..node.span.start].trim_end().ends_with("!!binary")
        || text[..node.span.start].contains('!');
    // Not compared: a block scalar that is a whole document. Two known differences,
    // neither reachable from a manifest (a manifest is a mapping):
    // - with an indentation indicator (`|1`) libyaml and saphyr indent the content by
    //   the indicator from column 0; `source::inner`, which maps offsets inside rule
    //   strings, counts from the parent's column;
    // - saphyr 0.3.3 runs on past a `---` line right after the header ("|\n--- l\n"
    //   loads as "--- l\n"); the loader fixes the case with content lines before the
    //   marker (`lenient::root_block_scalar_fix`), not this one.
    // Spans are still checked above.
    let root_block = is_root && matches!(node.style, ScalarStyle::Literal | ScalarStyle::Folded);
    if !tagged && !root_block && node.style != ScalarStyle::Plain {
        assert_eq!(
            decoded, value,
            "re-scanned scalar at {:?} differs from the loaded value",
            node.span
        );
    }
    let sample: Vec<usize> = if chars <= MAPPED_CHARS {
        (0..=chars).collect()
    } else {
        (0..MAPPED_CHARS / 2)
            .chain(chars - MAPPED_CHARS / 2..=chars)
            .collect()
    };
    for i in sample {
        let got = offset_in_scalar(text, node.span, node.style, i);
        let want = offsets.get(i).copied().unwrap_or(end);
        assert_eq!(got, Some(want), "offset_in_scalar({i}) at {:?}", node.span);
    }
    assert_eq!(
        offset_in_scalar(text, node.span, node.style, chars + 1),
        None,
        "an index past the end maps to nothing"
    );
}

/// Target (a): the loader and the span mapper.
pub fn check_yaml(text: &str) {
    // The pipeline parses every file with a final line break (`load::line_terminated`:
    // kubectl's line reader ends the last line with one too). Without it, saphyr reads a
    // last line of blanks inside a block scalar as one more line (`  i: |\n   d\r   `
    // gives "d\n\n", go-yaml "d\n"), which no checked file can reach.
    let terminated = crdlint::check::load::line_terminated(text.to_string());
    let text = terminated.as_str();
    let out = yaml::parse(text, &Limits::default());
    // All parses of a text share one budget (docs/limits.md).
    assert!(
        out.bytes_parsed <= (24 * text.len()).max(256 * 1024),
        "{} bytes parsed for a {}-byte text",
        out.bytes_parsed,
        text.len()
    );
    for e in &out.errors {
        assert_span(text, e.span, &format!("YAML error {:?}", e.message));
    }
    // JSON values are read by a walk that emits saphyr's events itself
    // (`source/yaml/json_events.rs`): saphyr's own reading must agree.
    if text
        .trim_start_matches('\u{FEFF}')
        .trim_start()
        .starts_with('{')
    {
        let saphyr = yaml::parse_with_saphyr_only(text, &Limits::default());
        let trees = |out: &yaml::ParseOutput| {
            out.documents
                .iter()
                .map(|d| (d.index, d.root.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(trees(&out), trees(&saphyr), "documents of {text:?}");
        assert_eq!(out.errors, saphyr.errors, "errors of {text:?}");
    }
    let mut last = None;
    for doc in &out.documents {
        assert!(
            last.is_none_or(|l| l < doc.index),
            "document indices increase"
        );
        last = Some(doc.index);
        assert_tree(text, &doc.root);
    }
}

/// Target (b): CRD validation of every document (CEL compilation and cost limits
/// included, errors mapped into rule strings), and rendering of its findings in every
/// output format (renderers slice the text with the spans).
/// A Kubernetes version the input picks (any crdlint knows, by the sum of its bytes),
/// so the version-dependent paths (CEL environments and cost walks, formats, number
/// bounds, update rules) are fuzzed as well as the newest.
pub fn version_for(text: &str) -> KubeVersion {
    let (oldest, newest) = (KubeVersion::OLDEST, KubeVersion::NEWEST);
    let span = newest.minor - oldest.minor + 1;
    let sum = text
        .bytes()
        .fold(0u32, |acc, b| acc.wrapping_add(u32::from(b)));
    KubeVersion::new(oldest.major, oldest.minor + sum % span)
}

pub fn check_crd(text: &str) {
    let out = yaml::parse(text, &Limits::default());
    let file = SourceFile::new("fuzz.yaml", text.to_string());
    let mut all = Vec::new();
    for doc in &out.documents {
        for d in crdlint::crd::validate_source(&doc.root, text) {
            assert_diagnostic(text, &d);
            all.push(d.in_document(&file, doc.index));
        }
    }
    // The update path (`check --old`): every document as an update of the first one,
    // which is read as a stored CRD whatever it holds, on a server of the version the
    // input picks.
    if let Some(first) = out.documents.first() {
        let old = crdlint::crd::OldCrd::new(&first.root);
        let options = crdlint::crd::Options {
            source: Some(text),
            old: Some(&old),
            kube_version: version_for(text),
            ..crdlint::crd::Options::default()
        };
        for doc in &out.documents {
            for d in crdlint::crd::validate_with_options(&doc.root, &options) {
                assert_diagnostic(text, &d);
                all.push(d.in_document(&file, doc.index));
            }
        }
    }
    render_all(&all);
    check_cost_report(text, &out.documents);
}

/// `crdlint cost` on every document, looking for fixes of every rule at a tenth of the
/// per-rule limit (with a small search budget, to keep runs fast): no panic; each fix
/// reaches its rule's target and loosens no bound; both formats render.
fn check_cost_report(text: &str, documents: &[yaml::ParsedDocument]) {
    use crdlint::cel::cost::PER_RULE_LIMIT;
    use crdlint::cel::cost::suggest::SearchBudget;
    use crdlint::cli::cost::{CostOutput, crd_report, write};
    let file = Arc::new(SourceFile::new("fuzz.yaml", text.to_string()));
    let budget = SearchBudget::new(1 << 16);
    let near = 0.1;
    let mut reports = Vec::new();
    for doc in documents {
        let Some(report) = crd_report(
            &file,
            doc.index,
            &doc.root,
            version_for(text),
            Some(near),
            &budget,
        ) else {
            continue;
        };
        for schema in &report.schemas {
            for (rule, search) in schema.cost.rules.iter().zip(&schema.suggestions) {
                let target = if rule.estimated_cost > PER_RULE_LIMIT {
                    PER_RULE_LIMIT
                } else {
                    (PER_RULE_LIMIT as f64 * near) as u64
                };
                for fix in &search.fixes {
                    assert!(fix.estimated_cost <= target, "fix over its target: {fix:?}");
                    assert!(fix.value >= 0, "negative bound: {fix:?}");
                    if let Some(current) = fix.current {
                        assert!(fix.value < current, "fix loosens a bound: {fix:?}");
                    }
                    let _ = fix.schema_path(&schema.cost.base);
                    let _ = fix.data_path();
                }
            }
        }
        reports.push(report);
    }
    for output in [CostOutput::Human, CostOutput::Json] {
        let mut sink = Vec::new();
        write(&mut sink, &reports, output, true).expect("cost report renders");
    }
}

/// Renders diagnostics in every format (the renderers must not panic on any span).
pub fn render_all(diagnostics: &[Diagnostic]) {
    let summary = Summary {
        files: 1,
        documents: 1,
        errors: diagnostics.len(),
        ..Summary::default()
    };
    for format in [
        crdlint::report::Format::Human,
        crdlint::report::Format::Short,
        crdlint::report::Format::Json,
    ] {
        let _ = crdlint::report::render(format, diagnostics, &summary, false);
    }
}

/// The schema CEL rules are fuzzed against: every CEL type a CRD can produce.
pub const CEL_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "x-kubernetes-validations": [RULES],
      "properties": {
        "replicas": {"type": "integer", "format": "int32", "maximum": 100},
        "ratio": {"type": "number"},
        "name": {"type": "string", "maxLength": 63},
        "enabled": {"type": "boolean"},
        "when": {"type": "string", "format": "date-time"},
        "timeout": {"type": "string", "format": "duration"},
        "size": {"x-kubernetes-int-or-string": true},
        "data": {"type": "string", "format": "byte"},
        "tags": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
        "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string"}, "port": {"type": "integer"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": true,
                     "x-kubernetes-preserve-unknown-fields": true},
        "optional": {"type": "string", "nullable": true}
      }
    }
  }
}"#;

/// A resource of [`CEL_SCHEMA`] with every field set.
pub const CEL_OBJECT: &str = r#"{
  "apiVersion": "example.com/v1", "kind": "Thing",
  "metadata": {"name": "thing", "namespace": "default", "labels": {"app": "x"}},
  "spec": {
    "replicas": 3, "ratio": 0.5, "name": "web-1", "enabled": true,
    "when": "2024-01-02T03:04:05Z", "timeout": "1h30m", "size": "10Gi", "data": "aGVsbG8=",
    "tags": ["a", "bb", "ccc"], "set": [1, 2, 3],
    "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
    "labels": {"a": "1", "b": "2"},
    "matrix": [[1.0, 2.0], [3.5]],
    "free": {"x": [1, "two", {"three": null}]},
    "embedded": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
    "optional": null
  }
}"#;

/// Target (c): a rule (and the same text as a messageExpression) compiled against
/// [`CEL_SCHEMA`] through the CRD loader, then evaluated on [`CEL_OBJECT`] (and as a
/// transition rule on the same object as old value).
pub fn check_cel_rule(rule: &str) {
    check_fast_parser(rule);
    let quoted = serde_json::to_string(rule).expect("a string serializes");
    let rules = format!(
        r#"{{"rule": {quoted}}}, {{"rule": "self.replicas >= 0", "messageExpression": {quoted}}}"#
    );
    let schema_text = CEL_SCHEMA.replace("RULES", &rules);
    // JSON is YAML: load it with spans so error offsets can be mapped into the text.
    let out = yaml::parse(&schema_text, &Limits::default());
    let root = match out.documents.first() {
        Some(doc) => doc.root.clone(),
        // A character YAML refuses (C1 controls, U+FFFE…): use the JSON value.
        None => Node::from_json(
            &serde_json::from_str(&schema_text).expect("the schema is JSON"),
            Span::default(),
        ),
    };
    let parsed_with_spans = !out.documents.is_empty();
    let schema = structural_of(&root);
    let base = FieldPath::root("spec.versions[0].schema.openAPIV3Schema");
    let compiled = cel::compile_rules(&schema, KubeVersion::NEWEST, &base);
    let rule_node = rule_node(&root);
    for r in &compiled {
        if let Some(at) = r.error_offset {
            let len = rule.chars().count();
            assert!(
                at <= len,
                "error offset {at} past the rule's {len} characters"
            );
            if parsed_with_spans && r.index == 0 {
                let node = rule_node.expect("the rule node exists");
                let mapped = offset_in_scalar(&schema_text, node.span, node.style, at)
                    .expect("an error offset maps into the file");
                assert_offset(&schema_text, mapped, "mapped CEL error offset");
            }
        }
        for d in &r.diagnostics {
            if parsed_with_spans {
                assert_diagnostic(&schema_text, d);
            }
        }
    }
    // The static cost estimate and the limits the server checks on create.
    let cost = cel::cost::estimate_compiled(&schema, &compiled, &base, KubeVersion::NEWEST);
    for f in cel::cost::limits::limit_findings(&cost, false) {
        if let (Some(span), true) = (f.span, parsed_with_spans) {
            assert_span(&schema_text, span, "cost finding");
        }
    }
    // The same rule through CRD validation, which maps errors into the rule string.
    let crd_text = CEL_CRD.replace("SCHEMA", &schema_text);
    let out = yaml::parse(&crd_text, &Limits::default());
    if let Some(doc) = out.documents.first() {
        for d in crdlint::crd::validate_source(&doc.root, &crd_text) {
            assert_diagnostic(&crd_text, &d);
        }
    }
    let object = Node::from_json(
        &serde_json::from_str(CEL_OBJECT).expect("the object is JSON"),
        Span::default(),
    );
    let _ = cel::evaluate(&schema, &compiled, &object, None);
    let _ = cel::evaluate(&schema, &compiled, &object, Some(&object));
    // The environment, parser options and cost walk of the version the rule picks.
    let version = version_for(rule);
    if version != KubeVersion::NEWEST {
        let compiled = cel::compile_rules(&schema, version, &base);
        for r in &compiled {
            if let Some(at) = r.error_offset {
                assert!(
                    at <= rule.chars().count(),
                    "error offset {at} past the rule"
                );
            }
        }
        let cost = cel::cost::estimate_compiled(&schema, &compiled, &base, version);
        let _ = cel::cost::limits::limit_findings(&cost, false);
        let _ = cel::evaluate(&schema, &compiled, &object, Some(&object));
    }
}

/// The fast-path parser builds exactly the generated parser's tree whenever it
/// accepts (and accepts nothing the generated parser refuses), for each set of parse
/// options the Kubernetes versions use.
pub fn check_fast_parser(rule: &str) {
    use cel::parse::ParseOptions;
    for (optional_syntax, two_var_comprehensions, sort_by) in [
        (true, true, true),
        (false, false, false),
        (true, false, false),
    ] {
        let options = ParseOptions {
            optional_syntax,
            two_var_comprehensions,
            sort_by,
        };
        if let Err(diff) = cel::fastparse::compare_with_generated(rule, options) {
            panic!("fast parser differs from the generated parser: {diff}");
        }
    }
}

/// A CRD around [`CEL_SCHEMA`] (JSON, so the schema text drops in as is).
const CEL_CRD: &str = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "things.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
  "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": SCHEMA}}]}}"#;

fn rule_node(root: &Node) -> Option<&Node> {
    let spec = root.get("properties")?.get("spec")?;
    match &spec.get("x-kubernetes-validations")?.value {
        Value::Array(items) => items.first()?.get("rule"),
        _ => None,
    }
}

fn structural_of(schema: &Node) -> Structural {
    let (props, _) = crdlint::model::schema::decode(schema, &FieldPath::root("schema"));
    structural::from_props(&props).expect("the fuzz schema is structural")
}

/// CRDs that custom resources are fuzzed against (the repository's fixtures plus one
/// with every extension and CEL rules).
pub const CRDS: &[&str] = &[
    include_str!("../../testdata/examples/crontab-crd.yaml"),
    include_str!("../../testdata/crs/docs-defaulting/crd.yaml"),
    include_str!("../../testdata/crs/openapi-messages/crd.yaml"),
    include_str!("../../testdata/crs/embedded-resources/crd.yaml"),
    include_str!("../../testdata/crs/int-or-string/crd.yaml"),
    include_str!("../../testdata/crs/list-map-key-defaults/crd.yaml"),
    include_str!("../../testdata/crs/openapi-junctors/crd.yaml"),
    include_str!("../../testdata/crs/openapi-formats/crd.yaml"),
    include_str!("../../testdata/crs/scale-subresource/crd.yaml"),
    include_str!("../../testdata/crs/update-ratcheting/crd.yaml"),
    include_str!("../crds/widgets.yaml"),
];

/// Loads [`CRDS`] as `check` prepares them (each must be a valid CRD: fuzzing looks
/// for bugs in the resource pipeline, not in these fixtures).
pub fn prepared_crds() -> Vec<Arc<PreparedCrd>> {
    CRDS.iter()
        .map(|text| {
            let out = yaml::parse(text, &Limits::default());
            let root = &out.documents.first().expect("a CRD document").root;
            let errors: Vec<_> = crdlint::crd::validate(root)
                .into_iter()
                .filter(|d| d.severity == crdlint::diag::Severity::Error)
                .map(|d| d.message)
                .collect();
            assert!(errors.is_empty(), "fuzz CRD is invalid: {errors:?}");
            Arc::new(PreparedCrd::new(root, KubeVersion::NEWEST))
        })
        .collect()
}

/// Target (d): every document of `text` as a custom resource of the CRD its kind names
/// (else of the CRD chosen by its index), created in every unknown-field mode and
/// updated from the previous document; then pruning is idempotent on what would be
/// stored, and defaulting then pruning keeps the defaults.
pub fn check_resources(crds: &[Arc<PreparedCrd>], text: &str) {
    let out = yaml::parse(text, &Limits::default());
    let accepted = vec![true; crds.len()];
    let documents: Vec<&Node> = out.documents.iter().map(|d| &d.root).collect();
    check_resource_documents(crds, &accepted, text, &documents, assert_default_then_prune);
}

/// Target (e): the CRDs of `text` (its `CustomResourceDefinition` documents, validated
/// and prepared as `check` prepares them: reusing the structural schemas validation
/// built) and every other document as a custom resource of one of them, as in target
/// (d). `check` validates resources against every CRD it reads, accepted or not, so the
/// pipeline must not panic on any; the invariants of stored objects are asserted for
/// CRDs without errors (a server refuses the others, and their defaults may be pruned).
/// A CRD prepared from scratch gives the same findings and stored object as one that
/// reuses what validation built.
pub fn check_crds_and_resources(text: &str) {
    use crdlint::schema::structural::sink::StructuralSink;
    let out = yaml::parse(text, &Limits::default());
    let version = version_for(text);
    let mut crds = Vec::new();
    let mut fresh = Vec::new();
    let mut accepted = Vec::new();
    let mut resources = Vec::new();
    for doc in &out.documents {
        let root = &doc.root;
        if root.get("kind").and_then(Node::as_str) != Some("CustomResourceDefinition") {
            resources.push(root);
            continue;
        }
        let (model, decode_errors) = crdlint::model::crd::decode(root);
        let built = StructuralSink::default();
        let options = crdlint::crd::Options {
            source: Some(text),
            kube_version: version,
            structurals: Some(&built),
            ..crdlint::crd::Options::default()
        };
        let findings = crdlint::crd::validate_decoded(root, &model, decode_errors, &options);
        for d in &findings {
            assert_diagnostic(text, d);
        }
        accepted.push(
            !findings
                .iter()
                .any(|d| d.severity == crdlint::diag::Severity::Error),
        );
        crds.push(Arc::new(PreparedCrd::from_model(
            &model,
            version,
            Some(&built),
        )));
        fresh.push(PreparedCrd::new(root, version));
    }
    if crds.is_empty() {
        return;
    }
    check_resource_documents(
        &crds,
        &accepted,
        text,
        &resources,
        assert_storing_is_idempotent,
    );
    for (index, root) in resources.iter().enumerate() {
        let crd = index % crds.len();
        let reused = crds[crd].outcome(root, UnknownFields::Error);
        let scratch = fresh[crd].outcome(root, UnknownFields::Error);
        assert_eq!(
            format!("{:?}", reused.diagnostics),
            format!("{:?}", scratch.diagnostics),
            "a CRD reusing validation's structural schemas gives other findings"
        );
        assert_eq!(
            reused.stored, scratch.stored,
            "a CRD reusing validation's structural schemas stores another object"
        );
    }
}

/// Each of `documents` as a custom resource of the CRD its kind names (else of the CRD
/// chosen by its index), created in every unknown-field mode and updated from the
/// previous document. Spans lie in `text`; for an `accepted` CRD, pruning is idempotent
/// on what would be stored, the stored object prints back, and `defaulting` holds of
/// each document and its schema.
fn check_resource_documents(
    crds: &[Arc<PreparedCrd>],
    accepted: &[bool],
    text: &str,
    documents: &[&Node],
    defaulting: fn(&Node, &Structural),
) {
    let mut previous: Option<&Node> = None;
    for (index, root) in documents.iter().copied().enumerate() {
        let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        // The CRDs its kind names, else all; the first byte picks one (so mutations of a
        // seed reach every CRD).
        let salt = index + text.bytes().next().map_or(0, usize::from);
        let matching: Vec<usize> = (0..crds.len())
            .filter(|&i| crds[i].compiled.matches(api_version, kind))
            .collect();
        let chosen = match matching.len() {
            0 => salt % crds.len(),
            n => matching[salt % n],
        };
        let (crd, strict) = (&crds[chosen], accepted[chosen]);
        for mode in [
            UnknownFields::Error,
            UnknownFields::Warn,
            UnknownFields::Ignore,
        ] {
            // Warn mode doubles as an update of the previous document.
            let old = previous.filter(|_| mode == UnknownFields::Warn);
            let outcome = crd.outcome_with_old(root, old, mode);
            for d in &outcome.diagnostics {
                assert_diagnostic(text, d);
            }
            if let (true, Some(stored), Some(version)) = (strict, &outcome.stored, &outcome.version)
                && let Some(schema) = crd.compiled.structural(version)
            {
                assert_prune_idempotent(stored, schema);
                assert_prints_back(stored);
            }
        }
        if strict
            && let Some(version) = api_version.rsplit('/').next()
            && let Some(schema) = crd.compiled.structural(version)
        {
            defaulting(root, schema);
        }
        previous = Some(root);
    }
}

/// Pruning, defaulting and pruning again (what the server does before it stores an
/// object) changes nothing the second time. (Defaulting then pruning need not keep the
/// defaults of any accepted CRD: the server accepts a default with fields its schema
/// does not know under `additionalProperties`, and prunes them after defaulting.)
pub fn assert_storing_is_idempotent(object: &Node, schema: &Structural) {
    let store = |x: &mut Node| {
        crdlint::schema::prune::prune(x, schema, true);
        crdlint::schema::prune::default(x, schema);
        crdlint::schema::prune::prune(x, schema, true);
    };
    let mut once = object.clone();
    store(&mut once);
    let mut twice = once.clone();
    store(&mut twice);
    assert_eq!(once, twice, "storing a stored object changed it");
}

/// `dry-run -o yaml` prints the stored object as text that reads back as it.
pub fn assert_prints_back(object: &Node) {
    if let Err(why) = crdlint::dryrun::check_reads_back(&object.to_json()) {
        panic!("{why}");
    }
}

/// Pruning a pruned object removes nothing and changes nothing.
pub fn assert_prune_idempotent(object: &Node, schema: &Structural) {
    let mut once = object.clone();
    crdlint::schema::prune::prune(&mut once, schema, true);
    let mut twice = once.clone();
    let removed = crdlint::schema::prune::prune(&mut twice, schema, true);
    assert!(removed.is_empty(), "second prune removed {removed:?}");
    assert_eq!(once, twice, "second prune changed the object");
}

/// After pruning, defaulting adds only what a further pruning keeps.
pub fn assert_default_then_prune(object: &Node, schema: &Structural) {
    let mut x = object.clone();
    crdlint::schema::prune::prune(&mut x, schema, true);
    crdlint::schema::prune::default(&mut x, schema);
    let defaulted = x.clone();
    let removed = crdlint::schema::prune::prune(&mut x, schema, true);
    assert!(
        removed.is_empty(),
        "pruning after defaulting removed {removed:?}"
    );
    assert_eq!(defaulted, x, "pruning after defaulting changed the object");
}
