//! `crdlint cost`: the API server's static CEL cost estimate of every rule of every
//! CRD, why it is what it is (the cardinality chain), and the bounds that fix it.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use owo_colors::OwoColorize;

use super::{ColorChoice, exit};

mod json;
use crate::cel::compile::{NodeSteps, RuleCompileResult, RuleProgram, compile_rules};
use crate::cel::cost::compile_support::RuleInput;
use crate::cel::cost::estimator::CostModel;
use crate::cel::cost::limits::{grouped, shown_data_paths};
use crate::cel::cost::{
    self, DeclCache, NodeContexts, PER_RULE_LIMIT, PER_SCHEMA_LIMIT, RuleCost, SchemaCost, suggest,
    suggest::{Search, SearchBudget},
};
use crate::cel::env::KubeVersion;
use crate::check::classify;
use crate::check::load;
use crate::diag::FieldPath;
use crate::report::terminal::escape_controls;
use crate::report::to_stderr;
use crate::schema::structural::{self, Structural};
use crate::source::walk::{self, WalkOptions};
use crate::source::yaml::Limits;
use crate::source::{Node, SourceFile};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  crdlint cost config/crd/            every rule's estimated cost, worst first\n  crdlint cost --near 0.5 crds/       also suggest bounds for rules above half the limit\n  crdlint cost -o json crd.yaml        the numbers as JSON\n\nExit status: 0 every rule and schema within the server's limits, 1 a limit exceeded, 2 usage or I/O error."
)]
pub struct CostArgs {
    /// CRD files or directories (`-` reads stdin).
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = CostOutput::Human)]
    pub output: CostOutput,

    /// Also suggest bounds for rules whose estimate is at least this share of the
    /// per-rule limit (for example 0.5); their target is that share.
    #[arg(long, value_name = "SHARE")]
    pub near: Option<f64>,

    /// Kubernetes version whose CEL environment compiles the rules.
    #[arg(long, value_name = "MAJOR.MINOR", value_parser = parse_version)]
    pub kube_version: Option<KubeVersion>,

    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Leave out paths matching GLOB (gitignore syntax; repeatable).
    #[arg(long, value_name = "GLOB", value_parser = crate::source::walk::parse_exclude_glob)]
    pub exclude: Vec<String>,

    /// Do not honour .gitignore and .ignore files.
    #[arg(long)]
    pub no_ignore: bool,

    /// Refuse files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 32 * 1024 * 1024)]
    pub max_file_size: u64,
}

fn parse_version(s: &str) -> Result<KubeVersion, String> {
    KubeVersion::parse(s).ok_or_else(|| format!("expected MAJOR.MINOR like 1.35, got {s:?}"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CostOutput {
    /// A table per CRD, worst rules first, with fixes.
    Human,
    /// One JSON object.
    Json,
}

/// The costs of one schema of one CRD, with suggestions for the rules that need them.
pub struct SchemaReport {
    pub versions: Vec<String>,
    pub cost: SchemaCost,
    /// Per rule of `cost.rules` (same order).
    pub suggestions: Vec<Search>,
    /// Rule and schema problems that keep crdlint from estimating (not structural …).
    pub note: Option<String>,
}

pub struct CrdReport {
    pub file: Arc<SourceFile>,
    pub document: usize,
    pub name: String,
    pub schemas: Vec<SchemaReport>,
}

impl CrdReport {
    fn over(&self) -> bool {
        self.schemas.iter().any(|s| {
            s.cost.total > PER_SCHEMA_LIMIT
                || s.cost.rules.iter().any(|r| {
                    r.estimated_cost > PER_RULE_LIMIT
                        || r.message_expression
                            .as_ref()
                            .is_some_and(|m| m.max_cost > PER_RULE_LIMIT)
                })
        })
    }
}

pub fn run(args: &CostArgs) -> u8 {
    if let Some(n) = args.near
        && !(n > 0.0 && n <= 1.0)
    {
        to_stderr(&format!(
            "error: --near must be a share of the limit in (0, 1], got {n}"
        ));
        return exit::TROUBLE;
    }
    let version = args.kube_version.unwrap_or(KubeVersion::NEWEST);
    let (inputs, walk_errors) = walk::collect(
        &args.paths,
        &WalkOptions {
            exclude: args.exclude.clone(),
            no_ignore: args.no_ignore,
        },
    );
    let mut trouble = false;
    for e in &walk_errors {
        let line = format!("error: {}: {}", e.path, e.message);
        to_stderr(&escape_controls(&line));
        trouble = true;
    }
    let mut reports = Vec::new();
    // One budget for the whole run: the search for fixes re-estimates rules many times.
    let budget = SearchBudget::new(suggest::SEARCH_WORK_LIMIT);
    for input in &inputs {
        let loaded = load::load(input, args.max_file_size, &Limits::default());
        if loaded.io_error {
            for d in &loaded.diagnostics {
                let line = format!("error: {}: {}", loaded.file.path, d.message);
                to_stderr(&escape_controls(&line));
            }
            trouble = true;
            continue;
        }
        // A file too large, not text or not YAML, or a document kubectl would refuse:
        // its CRDs were not costed, which the exit status must not hide.
        for d in loaded
            .diagnostics
            .iter()
            .filter(|d| d.severity == crate::diag::Severity::Error)
        {
            let at = d.span.map_or(String::new(), |span| {
                let p = loaded.file.position(span.start);
                format!(":{}:{}", p.line, p.column)
            });
            let line = format!("error: {}{at}: {}", loaded.file.path, d.message);
            to_stderr(&escape_controls(&line));
            trouble = true;
        }
        for doc in &loaded.documents {
            if let Some(r) = crd_report(
                &loaded.file,
                doc.index,
                &doc.root,
                version,
                args.near,
                &budget,
            ) {
                reports.push(r);
            }
        }
    }
    let color = args.output == CostOutput::Human && args.color.enabled();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let written = write(&mut stdout, &reports, args.output, color).and_then(|()| stdout.flush());
    if super::output_failed(written) || trouble {
        exit::TROUBLE
    } else if reports.iter().any(CrdReport::over) {
        exit::FINDINGS
    } else {
        exit::CLEAN
    }
}

/// Writes `reports` in `output`'s format.
pub fn write(
    out: &mut dyn Write,
    reports: &[CrdReport],
    output: CostOutput,
    color: bool,
) -> std::io::Result<()> {
    match output {
        CostOutput::Json => json::write(out, reports),
        CostOutput::Human => out.write_all(render_human(reports, color).as_bytes()),
    }
}

/// The cost report of one document, if it is an `apiextensions.k8s.io/v1` CRD.
pub fn crd_report(
    file: &Arc<SourceFile>,
    document: usize,
    root: &Node,
    version: KubeVersion,
    near: Option<f64>,
    budget: &SearchBudget,
) -> Option<CrdReport> {
    let meta = classify::type_meta(root)?;
    if !classify::is_crd(&meta) || meta.version != "v1" {
        return None;
    }
    let (crd, _) = crate::model::crd::decode(root);
    let name = root
        .get_path(&["metadata", "name"])
        .and_then(Node::as_str)
        .unwrap_or_default()
        .to_string();
    // The server checks a schema shared by every version once.
    let rendered: Vec<String> = crd
        .versions
        .iter()
        .map(|v| crate::crd::gojson::version_field(v, "schema"))
        .collect();
    let shared = !rendered.is_empty() && rendered.iter().all(|r| r == &rendered[0]);
    let mut schemas = Vec::new();
    for (i, v) in crd.versions.iter().enumerate() {
        if shared && i > 0 {
            continue;
        }
        let Some(props) = &v.schema else { continue };
        let versions = if shared {
            crd.versions
                .iter()
                .filter_map(|v| v.name.as_ref().map(|n| n.value.clone()))
                .collect()
        } else {
            v.name.iter().map(|n| n.value.clone()).collect()
        };
        let base = FieldPath::root("spec")
            .child("versions")
            .index(i)
            .child("schema")
            .child("openAPIV3Schema");
        let ss = match structural::from_props(props) {
            Ok(ss) => ss,
            Err(e) => {
                schemas.push(SchemaReport {
                    versions,
                    cost: empty_cost(&base),
                    suggestions: Vec::new(),
                    note: Some(format!(
                        "not estimated: the schema is not structural ({})",
                        e.message
                    )),
                });
                continue;
            }
        };
        let compiled = compile_rules(&ss, version, &base);
        let cost = cost::estimate_compiled(&ss, &compiled, &base, version);
        let programs = programs(&compiled);
        let types = DeclCache::default();
        let mut contexts = NodeContexts::new(&ss, &types);
        let suggestions = cost
            .rules
            .iter()
            .map(|r| rule_suggestions(&ss, &mut contexts, &programs, r, near, version, budget))
            .collect();
        schemas.push(SchemaReport {
            versions,
            cost,
            suggestions,
            note: None,
        });
    }
    Some(CrdReport {
        file: file.clone(),
        document,
        name,
        schemas,
    })
}

fn empty_cost(base: &FieldPath) -> SchemaCost {
    SchemaCost {
        base: base.clone(),
        rules: Vec::new(),
        total: 0,
        most_expensive: Vec::new(),
    }
}

/// The target a rule's estimate should reach, if it needs a fix.
fn target_for(r: &RuleCost, near: Option<f64>) -> Option<u64> {
    if r.estimated_cost > PER_RULE_LIMIT {
        return Some(PER_RULE_LIMIT);
    }
    let near = near?;
    let threshold = (PER_RULE_LIMIT as f64 * near) as u64;
    (r.estimated_cost >= threshold).then_some(threshold)
}

/// The compiled programs of a schema's rules, by node and index.
type Programs<'a> = HashMap<(NodeSteps, usize), &'a Arc<RuleProgram>>;

fn programs(compiled: &[RuleCompileResult]) -> Programs<'_> {
    compiled
        .iter()
        .filter_map(|c| Some(((c.node.clone(), c.index), c.program.as_ref()?)))
        .collect()
}

fn rule_suggestions<'a>(
    root: &'a Structural,
    contexts: &mut NodeContexts<'a, '_>,
    programs: &Programs<'_>,
    r: &RuleCost,
    near: Option<f64>,
    version: KubeVersion,
    budget: &SearchBudget,
) -> Search {
    let Some(target) = target_for(r, near) else {
        return Search::none();
    };
    // Looked up: a search of the list per rule was R² (4,000 rules under 300 nested
    // lists compared 16 million node paths).
    let Some(program) = programs.get(&(r.node.clone(), r.index)) else {
        return Search::none();
    };
    let input = RuleInput {
        node: &r.node,
        checked: &program.rule,
        model: CostModel::for_server(version),
    };
    suggest::suggestions(root, contexts, &input, target, budget)
}

fn share(cost: u64, limit: u64) -> f64 {
    cost as f64 / limit as f64
}

const BAR_WIDTH: usize = 20;

fn bar(share: f64, color: bool) -> String {
    let filled = ((share.min(1.0) * BAR_WIDTH as f64).round() as usize).min(BAR_WIDTH);
    let filled = if share > 0.0 { filled.max(1) } else { 0 };
    let on = "█".repeat(filled);
    let off = "░".repeat(BAR_WIDTH - filled);
    if !color {
        return format!("{on}{off}");
    }
    let on = if share > 1.0 {
        on.red().to_string()
    } else if share >= 0.5 {
        on.yellow().to_string()
    } else {
        on.green().to_string()
    };
    format!("{on}{}", off.dimmed())
}

fn percent(share: f64) -> String {
    if share > 100.0 {
        ">100x".to_string()
    } else if share >= 10.0 {
        format!("{share:.0}x")
    } else if share > 1.0 {
        format!("{share:.1}x")
    } else {
        format!("{:.1}%", share * 100.0)
    }
}

fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 70 {
        let cut: String = s.chars().take(67).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// The cardinality chain as the issue shows it:
/// `spec.rules[*] (maxItems unset) × .matches[*] (maxItems 64)`.
fn chain_text(r: &RuleCost) -> String {
    let chain = r.chain();
    if chain.is_empty() {
        return "no list or map above the rule: cardinality 1".to_string();
    }
    let parts: Vec<String> = chain
        .iter()
        .zip(shown_data_paths(&chain))
        .map(|(s, shown)| {
            let bound = match s.max {
                Some(m) => format!("{} {}", s.keyword, grouped(m)),
                None => format!("{} unset", s.keyword),
            };
            format!("{shown} ({bound})")
        })
        .collect();
    let product = match r.schema_max_cardinality {
        Some(c) => format!("= {}", grouped(c)),
        None => format!(
            "unbounded → the server assumes 3 MiB / ({} + 1 bytes per {}) = {}",
            r.min_serialized_size,
            r.data_path(),
            grouped(r.rule_max_cardinality)
        ),
    };
    format!("{} {product}", parts.join(" × "))
}

fn render_human(reports: &[CrdReport], color: bool) -> String {
    let mut out = String::new();
    // Names, paths and rules come from the checked files: their control characters are
    // escaped before they reach the terminal (`report::terminal`), and before colouring.
    let bold = |s: &str| {
        let s = escape_controls(s);
        if color {
            s.bold().to_string()
        } else {
            s.into_owned()
        }
    };
    let dim = |s: &str| {
        let s = escape_controls(s);
        if color {
            s.dimmed().to_string()
        } else {
            s.into_owned()
        }
    };
    let mut rules_total = 0usize;
    let mut over_total = 0usize;
    for c in reports {
        for s in &c.schemas {
            if s.cost.rules.is_empty() && s.note.is_none() {
                continue;
            }
            out.push_str(&format!(
                "{} {} {}\n",
                bold(&c.name),
                dim(&format!("({}, document {})", c.file.path, c.document + 1)),
                dim(&format!("versions {}", s.versions.join(", ")))
            ));
            if let Some(note) = &s.note {
                out.push_str(&format!("  {}\n\n", escape_controls(note)));
                continue;
            }
            let total_share = share(s.cost.total, PER_SCHEMA_LIMIT);
            out.push_str(&format!(
                "  schema total {} {:>7}  {} of {}\n",
                bar(total_share, color),
                percent(total_share),
                grouped(s.cost.total),
                grouped(PER_SCHEMA_LIMIT)
            ));
            let mut order: Vec<usize> = (0..s.cost.rules.len()).collect();
            order.sort_by(|a, b| {
                s.cost.rules[*b]
                    .estimated_cost
                    .cmp(&s.cost.rules[*a].estimated_cost)
            });
            for i in order {
                let r = &s.cost.rules[i];
                rules_total += 1;
                let sh = share(r.estimated_cost, PER_RULE_LIMIT);
                if r.estimated_cost > PER_RULE_LIMIT {
                    over_total += 1;
                }
                let pos = c.file.position(r.span.start);
                out.push_str(&format!(
                    "  {} {:>7}  {}  {}\n",
                    bar(sh, color),
                    percent(sh),
                    bold(&r.data_path()),
                    dim(&format!("{}:{}:{}", c.file.path, pos.line, pos.column)),
                ));
                out.push_str(&format!(
                    "      rule  {}\n",
                    escape_controls(&one_line(&r.rule))
                ));
                if !r.compiled {
                    out.push_str("      does not compile (cost 0; see `crdlint check`)\n");
                    continue;
                }
                out.push_str(&format!(
                    "      cost  {} = {} per call × {}\n",
                    grouped(r.estimated_cost),
                    grouped(r.max_cost),
                    grouped(r.cardinality())
                ));
                out.push_str(&format!(
                    "      card  {}\n",
                    escape_controls(&chain_text(r))
                ));
                if let Some(me) = &r.message_expression {
                    out.push_str(&format!(
                        "      messageExpression  {} per call ({})\n",
                        grouped(me.max_cost),
                        percent(share(me.max_cost, PER_RULE_LIMIT))
                    ));
                }
                let search = &s.suggestions[i];
                let fixes = &search.fixes;
                if r.estimated_cost > PER_RULE_LIMIT {
                    let head = "      over the limit of 10,000,000 per rule";
                    out.push_str(&if color {
                        format!("{}\n", head.red())
                    } else {
                        format!("{head}\n")
                    });
                }
                for f in fixes.iter().take(4) {
                    let now = match f.current {
                        Some(v) => format!("now {v}"),
                        None => "now unset".to_string(),
                    };
                    let text = format!(
                        "      fix   {}: {} on {} ({now}) → {}",
                        f.keyword,
                        f.value,
                        escape_controls(&f.data_path()),
                        grouped(f.estimated_cost)
                    );
                    out.push_str(&if color {
                        format!("{}\n", text.green())
                    } else {
                        format!("{text}\n")
                    });
                }
                if !search.complete {
                    out.push_str(&format!(
                        "      crdlint stopped looking for fixes: the run's search limit ({} nodes re-estimated) is spent\n",
                        grouped(suggest::SEARCH_WORK_LIMIT)
                    ));
                } else if fixes.is_empty() && (r.estimated_cost > PER_RULE_LIMIT) {
                    out.push_str(
                        "      no single maxItems/maxProperties/maxLength fixes this rule: simplify it or bound several values\n",
                    );
                }
            }
            out.push('\n');
        }
    }
    out.push_str(&format!(
        "{}, {} over the per-rule limit\n",
        crate::report::plural(rules_total, "rule", "rules"),
        over_total
    ));
    out
}
