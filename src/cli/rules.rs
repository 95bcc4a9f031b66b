//! `crdlint rules [CODE]`: the diagnostic codes and their documentation, from the
//! registry and the docs/rules pages compiled into the binary.

use clap::{Args, ValueEnum};
use serde_json::json;

use super::exit;
use crate::diag::CodeInfo;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  crdlint rules                        every code with its default severity and summary\n  crdlint rules missing-crd            the documentation of one code\n  crdlint rules -o json                the same table as JSON"
)]
pub struct RulesArgs {
    /// Print the documentation of this code.
    #[arg(value_name = "CODE")]
    pub code: Option<String>,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = RulesFormat::Text)]
    pub output: RulesFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// A table, or the page as Markdown.
    Text,
    /// JSON: `{"version": 1, "rules": [...]}`, or one rule with its `documentation`.
    Json,
}

pub use crate::report::docs::{documented_codes, page};

pub fn run(args: &RulesArgs) -> u8 {
    let text = match &args.code {
        None => list(args.output),
        Some(code) => match crate::codes::find(code) {
            Some(info) => one(info, args.output),
            None => {
                let known: Vec<&str> = crate::codes::all().iter().map(|c| c.code).collect();
                let hint = crate::check::suppress::suggest(code, &known)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                crate::report::to_stderr(&format!(
                    "error: unknown code `{code}`{hint}; `crdlint rules` lists every code"
                ));
                return exit::TROUBLE;
            }
        },
    };
    super::print_all(text.as_bytes())
}

fn rule_json(info: &CodeInfo) -> serde_json::Value {
    json!({
        "code": info.code,
        "severity": info.severity.as_str(),
        "summary": info.summary,
        "url": crate::report::sarif::help_uri(info.code),
    })
}

/// Every code: a table or JSON.
pub fn list(format: RulesFormat) -> String {
    let codes = crate::codes::all();
    match format {
        RulesFormat::Json => {
            let doc = json!({
                "version": 1,
                "rules": codes.iter().map(|c| rule_json(c)).collect::<Vec<_>>(),
            });
            serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
        }
        RulesFormat::Text => {
            let width = codes.iter().map(|c| c.code.len()).max().unwrap_or(4).max(4);
            let mut out = format!("{:width$}  {:8}  SUMMARY\n", "CODE", "SEVERITY");
            for c in &codes {
                out.push_str(&format!(
                    "{:width$}  {:8}  {}\n",
                    c.code,
                    c.severity.as_str(),
                    c.summary
                ));
            }
            out
        }
    }
}

/// One code's page (Markdown) or JSON.
pub fn one(info: &CodeInfo, format: RulesFormat) -> String {
    let page = page(info.code);
    match format {
        RulesFormat::Json => {
            let mut doc = rule_json(info);
            doc["documentation"] = json!(page);
            serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
        }
        RulesFormat::Text => match page {
            Some(page) if page.ends_with('\n') => page.to_string(),
            Some(page) => format!("{page}\n"),
            None => format!(
                "# {}\n\nDefault severity: **{}**\n\n{}\n",
                info.code,
                info.severity.as_str(),
                info.summary
            ),
        },
    }
}
