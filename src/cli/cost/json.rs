//! `crdlint cost -o json`, written as it is made: one rule's value at a time, the same
//! bytes as pretty-printing the whole report as one value. Held whole, the report of
//! 4,000 rules under 300 nested lists (each naming every list above it by its whole
//! path, 1.9 GB of JSON from a 660 KB CRD) took 7 GB.

use std::io::Write;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value as Json, json};

use super::{CrdReport, SchemaReport, share};
use crate::cel::cost::suggest::Search;
use crate::cel::cost::{PER_RULE_LIMIT, PER_SCHEMA_LIMIT, RuleCost};
use crate::source::SourceFile;

/// Writes the report of `reports`, and a line break.
pub(super) fn write(out: &mut dyn Write, reports: &[CrdReport]) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &Report(reports)).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}

struct Report<'a>(&'a [CrdReport]);

impl Serialize for Report<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("version", &1)?;
        let crds: Vec<Crd<'_>> = self.0.iter().map(Crd).collect();
        map.serialize_entry("crds", &crds)?;
        map.end()
    }
}

struct Crd<'a>(&'a CrdReport);

impl Serialize for Crd<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("file", &c.file.path)?;
        map.serialize_entry("document", &c.document)?;
        map.serialize_entry("name", &c.name)?;
        let schemas: Vec<Schema<'_>> = c.schemas.iter().map(|s| Schema(c, s)).collect();
        map.serialize_entry("schemas", &schemas)?;
        map.end()
    }
}

struct Schema<'a>(&'a CrdReport, &'a SchemaReport);

impl Serialize for Schema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = self.1;
        let mut map = serializer.serialize_map(Some(7))?;
        map.serialize_entry("path", &s.cost.base.to_string())?;
        map.serialize_entry("versions", &s.versions)?;
        map.serialize_entry("total", &s.cost.total)?;
        map.serialize_entry("limit", &PER_SCHEMA_LIMIT)?;
        map.serialize_entry("exceedsLimit", &(s.cost.total > PER_SCHEMA_LIMIT))?;
        map.serialize_entry("note", &s.note)?;
        map.serialize_entry("rules", &Rules(self.0, s))?;
        map.end()
    }
}

/// A schema's rules, costliest first, each made when it is written.
struct Rules<'a>(&'a CrdReport, &'a SchemaReport);

impl Serialize for Rules<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (c, s) = (self.0, self.1);
        let mut order: Vec<usize> = (0..s.cost.rules.len()).collect();
        order.sort_by(|a, b| {
            s.cost.rules[*b]
                .estimated_cost
                .cmp(&s.cost.rules[*a].estimated_cost)
        });
        serializer.collect_seq(
            order
                .iter()
                .map(|&i| rule_json(&c.file, &s.cost.rules[i], &s.suggestions[i])),
        )
    }
}

fn rule_json(file: &SourceFile, r: &RuleCost, search: &Search) -> Json {
    let pos = file.position(r.span.start);
    let chain: Vec<Json> = r
        .chain()
        .iter()
        .map(|s| {
            json!({
                "path": s.schema_path.to_string(),
                "data": s.data_path,
                "keyword": s.keyword,
                "max": s.max,
            })
        })
        .collect();
    let fixes: Vec<Json> = search
        .fixes
        .iter()
        .map(|s| {
            json!({
                "path": s.schema_path(r.field.base()).to_string(),
                "data": s.data_path(),
                "keyword": s.keyword,
                "current": s.current,
                "value": s.value,
                "estimatedCost": s.estimated_cost,
            })
        })
        .collect();
    json!({
        "field": r.field.to_string(),
        "rule": r.rule,
        "line": pos.line,
        "column": pos.column,
        "node": r.data_path(),
        "compiled": r.compiled,
        "maxCost": r.max_cost,
        "ruleMaxCardinality": r.rule_max_cardinality,
        "schemaMaxCardinality": r.schema_max_cardinality,
        "cardinality": r.cardinality(),
        "estimatedCost": r.estimated_cost,
        "limit": PER_RULE_LIMIT,
        "share": share(r.estimated_cost, PER_RULE_LIMIT),
        "exceedsLimit": r.estimated_cost > PER_RULE_LIMIT,
        "messageExpressionMaxCost": r.message_expression.as_ref().map(|m| m.max_cost),
        "chain": chain,
        "suggestions": fixes,
        "suggestionsComplete": search.complete,
    })
}
