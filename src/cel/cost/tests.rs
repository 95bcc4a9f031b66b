//! Fixtures whose expected numbers were recorded from the API server's own code
//! (crdoracle: kubectl-validate with k8s.io/apiextensions-apiserver v0.35.0 and
//! cel-go v0.26.0): every rule's per-call cost, both cardinalities, the estimated
//! cost, the messageExpression cost, each schema's total, and the cost errors.

use serde_json::Value as Json;

use super::*;
use crate::cel::env::KubeVersion;
use crate::schema::structural;
use crate::source::yaml::{Limits, parse};

const V: KubeVersion = KubeVersion::new(1, 35);

fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/cost")
}

/// The schemas of each CRD document in `name`, estimated at the server's paths.
fn estimate_file(name: &str) -> Vec<Vec<SchemaCost>> {
    estimate_file_at(name, V)
}

fn estimate_file_at(name: &str, version: KubeVersion) -> Vec<Vec<SchemaCost>> {
    let text = std::fs::read_to_string(fixture_dir().join(name)).expect("fixture");
    let parsed = parse(&text, &Limits::default());
    assert!(parsed.errors.is_empty(), "{name}: {:?}", parsed.errors);
    parsed
        .documents
        .iter()
        .map(|doc| {
            let (crd, _) = crate::model::crd::decode(&doc.root);
            let rendered: Vec<String> = crd
                .versions
                .iter()
                .map(|v| crate::crd::gojson::version_field(v, "schema"))
                .collect();
            let shared = rendered.iter().all(|r| r == &rendered[0]);
            let mut out = Vec::new();
            for (i, v) in crd.versions.iter().enumerate() {
                if shared && i > 0 {
                    continue;
                }
                let props = v.schema.as_ref().expect("schema");
                let base = if shared {
                    FieldPath::root("spec")
                        .child("validation")
                        .child("openAPIV3Schema")
                } else {
                    FieldPath::root("spec")
                        .child("versions")
                        .index(i)
                        .child("schema")
                        .child("openAPIV3Schema")
                };
                let ss = structural::from_props(props).expect("structural");
                out.push(estimate(&ss, version, &base));
            }
            out
        })
        .collect()
}

fn u64_of(v: &Json) -> Option<u64> {
    v.as_u64()
}

fn check_fixture(name: &str) {
    let oracle: Json = serde_json::from_str(
        &std::fs::read_to_string(fixture_dir().join(name.replace(".yaml", ".oracle.json")))
            .expect("oracle record"),
    )
    .expect("json");
    let ours = estimate_file(name);
    let docs = oracle["documents"].as_array().expect("documents");
    assert_eq!(docs.len(), ours.len(), "{name}: documents");
    let mut compared = 0;
    for (doc, schemas) in docs.iter().zip(&ours) {
        let cel = doc["cel"].as_array().expect("cel");
        assert_eq!(cel.len(), schemas.len(), "{name}: schemas");
        let mut our_errors: Vec<(String, String)> = Vec::new();
        for (o, s) in cel.iter().zip(schemas) {
            assert_eq!(o["schemaPath"].as_str(), Some(s.base.as_str()), "{name}");
            assert_eq!(u64_of(&o["totalCost"]), Some(s.total), "{name}: total");
            for orule in o["rules"].as_array().expect("rules") {
                let path = orule["path"].as_str().expect("path");
                let r = s
                    .rules
                    .iter()
                    .find(|r| r.field.to_string() == path)
                    .unwrap_or_else(|| panic!("{name}: no rule at {path}"));
                let what = format!("{name}: {path} {:?}", r.rule);
                assert_eq!(orule["rule"].as_str(), Some(r.rule.as_str()), "{what}");
                assert_eq!(
                    u64_of(&orule["maxCost"]),
                    Some(r.max_cost),
                    "{what}: maxCost"
                );
                assert_eq!(
                    u64_of(&orule["estimatedCost"]),
                    Some(r.estimated_cost),
                    "{what}: estimatedCost"
                );
                assert_eq!(
                    u64_of(&orule["schemaMaxCardinality"]),
                    r.schema_max_cardinality,
                    "{what}: schemaMaxCardinality"
                );
                let compile_error = orule.get("compileError").is_some();
                assert_eq!(!compile_error, r.compiled, "{what}: compiled");
                if !compile_error {
                    assert_eq!(
                        u64_of(&orule["ruleMaxCardinality"]),
                        Some(r.rule_max_cardinality),
                        "{what}: ruleMaxCardinality"
                    );
                }
                let me = orule
                    .get("messageExpressionMaxCost")
                    .and_then(u64_of)
                    .filter(|c| *c > 0);
                assert_eq!(
                    me,
                    r.message_expression
                        .as_ref()
                        .map(|m| m.max_cost)
                        .filter(|c| *c > 0),
                    "{what}: messageExpressionMaxCost"
                );
                compared += 1;
            }
            assert_eq!(o["rules"].as_array().map(Vec::len), Some(s.rules.len()));
            for f in limit_findings(s, false) {
                our_errors.push((f.error.field.to_string(), f.error.detail.clone()));
            }
        }
        let mut expected: Vec<(String, String)> = doc["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .filter(|e| {
                e["type"] == "FieldValueForbidden"
                    && e["detail"].as_str().is_some_and(|d| {
                        d.contains("estimated rule cost") || d.contains("messageExpression cost")
                    })
            })
            .map(|e| {
                (
                    e["field"].as_str().unwrap_or_default().to_string(),
                    e["detail"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        // Which of equally costly rules the server names as contributors follows Go's
        // map order: compare those by the costs they name.
        let cost_of = |field: &str| -> u64 {
            schemas
                .iter()
                .flat_map(|s| &s.rules)
                .find_map(|r| {
                    if r.field.to_string() == field {
                        Some(r.estimated_cost)
                    } else {
                        r.message_expression
                            .as_ref()
                            .filter(|m| m.field.to_string() == field)
                            .map(|m| m.max_cost)
                    }
                })
                .unwrap_or(u64::MAX)
        };
        let normalize = |errors: &mut Vec<(String, String)>| {
            for (field, detail) in errors.iter_mut() {
                if detail.starts_with("contributed to") {
                    *field = format!("cost {}", cost_of(field));
                }
            }
            errors.sort();
        };
        normalize(&mut expected);
        normalize(&mut our_errors);
        assert_eq!(our_errors, expected, "{name}: cost errors");
        let accepted = doc["verdict"] == "accepted";
        if accepted {
            assert!(our_errors.is_empty(), "{name}: accepted by the server");
        }
    }
    assert!(compared > 0, "{name}: no rules compared");
}

#[test]
fn strings() {
    check_fixture("strings.yaml");
}

#[test]
fn lists_and_comprehensions() {
    check_fixture("lists.yaml");
}

#[test]
fn maps() {
    check_fixture("maps.yaml");
}

#[test]
fn kubernetes_libraries() {
    check_fixture("libraries.yaml");
}

#[test]
fn cardinality_int_or_string_embedded_formats() {
    check_fixture("cardinality.yaml");
}

#[test]
fn message_expressions() {
    check_fixture("message-expression.yaml");
}

#[test]
fn docs_example() {
    check_fixture("docs-example.yaml");
}

#[test]
fn boundary_max_items() {
    check_fixture("boundary-max-items.yaml");
}

#[test]
fn boundary_max_length() {
    check_fixture("boundary-max-length.yaml");
}

#[test]
fn boundary_nested_cardinality() {
    check_fixture("boundary-nested.yaml");
}

#[test]
fn boundary_max_properties() {
    check_fixture("boundary-max-properties.yaml");
}

#[test]
fn boundary_schema_total() {
    check_fixture("boundary-total.yaml");
}

#[test]
fn every_fixture_is_tested() {
    let mut names: Vec<String> = std::fs::read_dir(fixture_dir())
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    let tested = [
        "boundary-max-items.yaml",
        "boundary-max-length.yaml",
        "boundary-max-properties.yaml",
        "boundary-nested.yaml",
        "boundary-total.yaml",
        "cardinality.yaml",
        "comprehensions-before-1.33.yaml",
        "docs-example.yaml",
        "dyn-before-1.33.yaml",
        "go-int64-wrap.yaml",
        "go-slices.yaml",
        "libraries.yaml",
        "lists.yaml",
        "maps.yaml",
        "message-expression.yaml",
        "strings.yaml",
    ];
    assert_eq!(names, tested);
}

#[test]
fn cost_error_message_forms() {
    let m = |c| cost_error_message("estimated rule cost", c, PER_RULE_LIMIT);
    let tail = " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    assert_eq!(
        m(10_485_760),
        format!("estimated rule cost exceeds budget by factor of 1.048576x{tail}")
    );
    assert_eq!(
        m(19_000_000),
        format!("estimated rule cost exceeds budget by factor of 1.9x{tail}")
    );
    assert_eq!(
        m(1_000_000_001),
        format!("estimated rule cost exceeds budget by factor of more than 100x{tail}")
    );
    assert_eq!(
        m(1_000_000_000),
        format!("estimated rule cost exceeds budget by factor of 100.0x{tail}")
    );
}

#[test]
fn go_slice_paths_alias_like_cel_go() {
    // `self.a.all(x, x.c.all(y, x.d.…))` sizes the range `x.c` as `x.d`: cel-go's
    // paths share a backing array (8,394,897,741,453 vs 52,428,753 when swapped).
    check_fixture("go-slices.yaml");
}

#[test]
fn int64_sizes_wrap_like_go() {
    // maxLength 2^63-1 on a string: `maxLength * 4` wraps to -4 in Go, which the size
    // estimator turns into 2^64-4 bytes (cost 1,844,674,407,370,955,265 per call).
    check_fixture("go-int64-wrap.yaml");
}

/// The search for fixes of the docs example's `spec.unbounded` rule, within `budget`.
fn docs_example_search(budget: &suggest::SearchBudget) -> suggest::Search {
    let text = std::fs::read_to_string(fixture_dir().join("docs-example.yaml")).unwrap();
    let parsed = parse(&text, &Limits::default());
    let (crd, _) = crate::model::crd::decode(&parsed.documents[0].root);
    let ss = structural::from_props(crd.versions[0].schema.as_ref().unwrap()).unwrap();
    let base = FieldPath::root("spec")
        .child("validation")
        .child("openAPIV3Schema");
    let compiled = compile_rules(&ss, V, &base);
    let cost = estimate_compiled(&ss, &compiled, &base, V);
    let r = cost
        .rules
        .iter()
        .find(|r| r.data_path() == "spec.unbounded")
        .unwrap();
    let program = compiled
        .iter()
        .find(|c| c.node == r.node)
        .and_then(|c| c.program.clone())
        .unwrap();
    let input = compile_support::RuleInput {
        node: &r.node,
        checked: &program.rule,
        model: estimator::CostModel::NEWEST,
    };
    let types = DeclCache::default();
    let mut contexts = NodeContexts::new(&ss, &types);
    suggest::suggestions(&ss, &mut contexts, &input, PER_RULE_LIMIT, budget)
}

fn fixes_of(search: &suggest::Search) -> Vec<(&str, String, i64, u64)> {
    search
        .fixes
        .iter()
        .map(|s| (s.keyword, s.data_path(), s.value, s.estimated_cost))
        .collect()
}

#[test]
fn suggestions_fix_the_docs_example() {
    let budget = suggest::SearchBudget::new(suggest::SEARCH_WORK_LIMIT);
    let search = docs_example_search(&budget);
    assert!(search.complete);
    // maxItems 31 / maxLength 12 are the server's boundaries (boundary fixtures).
    assert_eq!(
        fixes_of(&search),
        vec![
            ("maxItems", "spec.unbounded".to_string(), 31, 9_751_889),
            ("maxLength", "spec.unbounded[*]".to_string(), 12, 9_437_177),
        ]
    );
}

#[test]
fn the_search_for_fixes_stops_when_its_budget_is_spent() {
    let full = suggest::SearchBudget::new(suggest::SEARCH_WORK_LIMIT);
    docs_example_search(&full);
    let used = suggest::SEARCH_WORK_LIMIT - full.remaining();
    // Enough for the whole search: the same fixes.
    let exact = suggest::SearchBudget::new(used);
    let search = docs_example_search(&exact);
    assert!(search.complete);
    assert_eq!(fixes_of(&search).len(), 2);
    assert_eq!(exact.remaining(), 0);
    // One unit short: the last bound's search cannot finish, so only the first tried
    // (the strings' maxLength) is suggested, and the search says it stopped.
    let short = suggest::SearchBudget::new(used - 1);
    let search = docs_example_search(&short);
    assert!(!search.complete);
    assert_eq!(
        fixes_of(&search),
        vec![("maxLength", "spec.unbounded[*]".to_string(), 12, 9_437_177)]
    );
    // Nothing left: no rule starts.
    let none = suggest::SearchBudget::new(0);
    let search = docs_example_search(&none);
    assert!(!search.complete);
    assert!(search.fixes.is_empty());
}

#[test]
fn limit_findings_from_schema_props_for_the_crd_hook() {
    let node = crate::source::Node::from_json(
        &serde_json::json!({
            "type": "object",
            "properties": {"spec": {
                "type": "object",
                "properties": {"l": {"type": "array", "items": {"type": "string"}}},
                "x-kubernetes-validations": [{"rule": "self.l.all(x, x.contains('a string'))"}],
            }},
        }),
        crate::source::Span::default(),
    );
    let base = FieldPath::root("spec")
        .child("versions")
        .index(0)
        .child("schema")
        .child("openAPIV3Schema");
    let (props, _) = crate::model::schema::decode(&node, &base);
    let found = schema_limit_findings(&props, &base, V);
    let got: Vec<(String, String)> = found
        .iter()
        .map(|f| (f.code.to_string(), f.error.to_string()))
        .collect();
    let tail = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    let rule =
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
    assert_eq!(
        got,
        vec![
            (
                "cel-cost-rule".to_string(),
                format!(
                    "{rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x {tail}"
                )
            ),
            (
                "cel-cost-total".to_string(),
                format!(
                    "{rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
                )
            ),
            (
                "cel-cost-total".to_string(),
                format!(
                    "spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x {tail}"
                )
            ),
        ]
    );
    assert_eq!(
        found[0].help,
        "estimated cost 329,857,577,778 = 329,857,577,778 per evaluation × cardinality 1 (no list or map above the rule); the limit is 10,000,000. Run `crdlint cost` for the largest maxItems/maxLength values that fit"
    );
}

/// Each rule's (maxCost, messageExpression maxCost) in `name`, by index.
fn rule_costs_at(name: &str, version: KubeVersion) -> Vec<(u64, Option<u64>)> {
    let schemas = estimate_file_at(name, version);
    let mut rules: Vec<_> = schemas[0][0].rules.iter().collect();
    rules.sort_by_key(|r| r.index);
    rules
        .iter()
        .map(|r| {
            (
                r.max_cost,
                r.message_expression.as_ref().map(|m| m.max_cost),
            )
        })
        .collect()
}

/// The 1.32 server's numbers for `name` (`<name>.oracle-1.32.tsv`: index, maxCost,
/// messageExpression maxCost or 0 when there is none).
fn oracle_1_32(name: &str, with_message_expression: &[usize]) -> Vec<(u64, Option<u64>)> {
    let tsv = fixture_dir().join(name.replace(".yaml", ".oracle-1.32.tsv"));
    std::fs::read_to_string(tsv)
        .expect("oracle")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .enumerate()
        .map(|(i, l)| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f[0], format!("[{i}]"), "{name}: rows in rule order");
            let me: u64 = f[2].parse().unwrap();
            (
                f[1].parse().unwrap(),
                with_message_expression.contains(&i).then_some(me),
            )
        })
        .collect()
}

/// `dyn(x)` costs as cel-go of the server's release costs it: transparent from
/// Kubernetes 1.33 (cel-go v0.23), an ordinary call of unknown result size before.
#[test]
fn dyn_costs_follow_the_servers_cel_go_release() {
    let name = "dyn-before-1.33.yaml";
    let oracle = oracle_1_32(name, &[8]);
    assert_eq!(oracle.len(), 9);
    assert_eq!(rule_costs_at(name, KubeVersion::new(1, 32)), oracle);
    // From 1.33 `dyn(x)` is `x` plus 1: the same rules cost what their operands do.
    assert_eq!(
        rule_costs_at(name, KubeVersion::new(1, 33)),
        [
            (4, None),
            (3, None),
            (4, None),
            (9, None),
            (20, None),
            (43, None),
            (4, None),
            (5, None),
            (0, Some(7)),
        ]
    );
    assert_eq!(
        rule_costs_at(name, V),
        rule_costs_at(name, KubeVersion::new(1, 33))
    );
}

/// Comprehensions as cel-go before v0.23 walks them (iteration variables resolved
/// against their range at each use, no local variables or entry sizes), and
/// int-or-string values sized without their `maxLength` before 1.34.
#[test]
fn comprehension_and_int_or_string_costs_follow_the_servers_release() {
    let name = "comprehensions-before-1.33.yaml";
    let oracle = oracle_1_32(name, &[]);
    assert_eq!(oracle.len(), 14);
    assert_eq!(rule_costs_at(name, KubeVersion::new(1, 32)), oracle);
    let newest = rule_costs_at(name, V);
    let changed: Vec<usize> = (0..oracle.len())
        .filter(|&i| newest[i] != oracle[i])
        .collect();
    // Comprehensions nested in one over a list of objects (0-2, 11) and the
    // int-or-string rules (9, 10).
    assert_eq!(changed, [0, 1, 2, 9, 10, 11]);
    // 1.33 walks comprehensions as the newest servers, but sizes int-or-string as 1.32.
    let v133 = rule_costs_at(name, KubeVersion::new(1, 33));
    for i in 0..oracle.len() {
        let expected = if [9, 10].contains(&i) {
            oracle[i]
        } else {
            newest[i]
        };
        assert_eq!(v133[i], expected, "rule {i}");
    }
}

/// A list of objects whose `m` is a map of lists of strings with a rule; `inner` is
/// the innermost list's `maxItems`.
fn nested_lists_and_maps(inner: Option<u64>) -> Structural {
    let mut innermost = serde_json::json!({
        "type": "array",
        "items": {
            "type": "string", "maxLength": 3000,
            "x-kubernetes-validations": [{"rule": "self.matches('^a+$')"}],
        },
    });
    if let Some(n) = inner {
        innermost["maxItems"] = n.into();
    }
    let node = crate::source::Node::from_json(
        &serde_json::json!({
            "type": "object",
            "properties": {"spec": {
                "type": "array", "maxItems": 10,
                "items": {
                    "type": "object",
                    "properties": {"m": {
                        "type": "object", "maxProperties": 20,
                        "additionalProperties": innermost,
                    }},
                },
            }},
        }),
        crate::source::Span::default(),
    );
    let (props, _) = crate::model::schema::decode(&node, &schema_base());
    structural::from_props(&props).expect("structural")
}

fn schema_base() -> FieldPath {
    FieldPath::root("spec")
        .child("versions")
        .index(0)
        .child("schema")
        .child("openAPIV3Schema")
}

/// The chain of a rule under nested lists and maps: kept as levels, printed with each
/// level's whole paths (`crdlint cost -o json`) and, in the note, each data path
/// after the one before it.
#[test]
fn a_chain_under_nested_lists_and_maps_prints_each_level_once() {
    let cost = estimate(&nested_lists_and_maps(None), V, &schema_base());
    let r = &cost.rules[0];
    let chain: Vec<(String, String, &str, Option<u64>)> = r
        .chain()
        .into_iter()
        .map(|s| (s.schema_path.to_string(), s.data_path, s.keyword, s.max))
        .collect();
    let schema = "spec.versions[0].schema.openAPIV3Schema";
    assert_eq!(
        chain,
        vec![
            (
                format!("{schema}.properties[spec]"),
                "spec[*]".to_string(),
                "maxItems",
                Some(10)
            ),
            (
                format!("{schema}.properties[spec].items.properties[m]"),
                "spec[*].m[*]".to_string(),
                "maxProperties",
                Some(20)
            ),
            (
                format!("{schema}.properties[spec].items.properties[m].additionalProperties"),
                "spec[*].m[*][*]".to_string(),
                "maxItems",
                None
            ),
        ]
    );
    assert_eq!(r.data_path(), "spec[*].m[*][*]");
    assert_eq!(
        limits::cardinality_note(r),
        format!(
            "cardinality {} = 3 MiB / (2 bytes, the smallest spec[*].m[*][*] + 1) because nothing above spec[*].m[*][*] (maxItems unset) bounds it",
            limits::grouped(r.rule_max_cardinality)
        )
    );
    // Bounded: the product, each level after the first without the path before it.
    let cost = estimate(&nested_lists_and_maps(Some(5)), V, &schema_base());
    assert_eq!(
        limits::cardinality_note(&cost.rules[0]),
        "cardinality 1,000 = spec[*] (maxItems 10) × .m[*] (maxProperties 20) × [*] (maxItems 5)"
    );
}

/// Every rule with a program in the CRD documents of `text`, with its schema, to
/// hand to `each`.
fn each_rule_input(text: &str, each: &mut dyn FnMut(&Structural, &compile_support::RuleInput<'_>)) {
    let parsed = parse(text, &Limits::default());
    for doc in &parsed.documents {
        let (crd, _) = crate::model::crd::decode(&doc.root);
        for v in &crd.versions {
            let Some(ss) = v
                .schema
                .as_ref()
                .and_then(|p| structural::from_props(p).ok())
            else {
                continue;
            };
            let base = FieldPath::root("spec");
            for c in compile_rules(&ss, V, &base) {
                let Some(program) = &c.program else { continue };
                let input = compile_support::RuleInput {
                    node: &c.node,
                    checked: &program.rule,
                    model: estimator::CostModel::NEWEST,
                };
                each(&ss, &input);
            }
        }
    }
}

/// [`suggest::oracle::compare_trials`] on every rule of `files`: how many rules, and
/// how many trials were compared; panics at the first that differ.
fn compare_trials_in(files: &[std::path::PathBuf]) -> (usize, usize) {
    let (mut rules, mut compared) = (0, 0);
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        each_rule_input(&text, &mut |ss, input| {
            rules += 1;
            match suggest::oracle::compare_trials(ss, input) {
                Ok(n) => compared += n,
                Err(e) => panic!(
                    "{}: rule at {}: {e}",
                    f.display(),
                    data_path_of(input.node.iter())
                ),
            }
        });
    }
    (rules, compared)
}

/// The search's trials cost a bound without walking the schema from the root
/// (declared types are built bottom-up); for every bound of every rule of the cost
/// fixtures and of `testdata/cost-search` (made for this: every kind of bound, under a
/// rule at the root and in an embedded resource), at ten values, they cost what the
/// walk on the changed schema costs.
#[test]
fn trials_cost_what_a_walk_from_the_root_costs() {
    let search_fixtures = fixture_dir().join("../cost-search");
    let mut files: Vec<_> = [fixture_dir(), search_fixtures]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let (rules, compared) = compare_trials_in(&files);
    assert_eq!((files.len(), rules, compared), (17, 238, 7_200));
    println!(
        "{} fixtures, {rules} rules, {compared} trials compared",
        files.len()
    );
}

/// [`trials_cost_what_a_walk_from_the_root_costs`] on the shared corpus's CRDs:
/// `cargo test --release --lib trials_on_the_corpus -- --ignored --nocapture`.
#[test]
#[ignore]
fn trials_on_the_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/crds");
    if !dir.is_dir() {
        println!("skipped: no corpus at {}", dir.display());
        return;
    }
    let mut files = Vec::new();
    let mut dirs = vec![dir];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (rules, compared) = compare_trials_in(&files);
    println!(
        "{} files, {rules} rules, {compared} trials compared",
        files.len()
    );
}
