//! Custom resources: each CRD of the run is prepared once (structural schemas,
//! validators, compiled CEL programs — the latter only when a resource needs them),
//! shared read-only across workers, and every resource runs the server's create
//! pipeline against it.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::timings::{self, Stage};
use crate::cel::{self, KubeVersion, RuleCompileResult};
use crate::diag::{Diagnostic, FieldPath, Severity};
use crate::schema::resource::{
    CompiledCrd, Options, ResourceOutcome, RuleEvaluator, UnknownFields,
};
use crate::schema::structural::Structural;
use crate::source::Node;

/// A CRD ready for resources, with its CEL programs compiled on first use.
pub struct PreparedCrd {
    pub compiled: CompiledCrd,
    /// Per version name: the compiled rules of that version's schema.
    rules: OnceLock<HashMap<String, Vec<RuleCompileResult>>>,
    kube_version: KubeVersion,
    versions: Vec<String>,
}

impl PreparedCrd {
    pub fn new(root: &Node, kube_version: KubeVersion) -> PreparedCrd {
        let (crd, _) = crate::model::crd::decode(root);
        let versions = crd
            .versions
            .iter()
            .filter_map(|v| v.name.as_ref().map(|n| n.value.clone()))
            .collect();
        PreparedCrd {
            compiled: timings::time(Stage::CrdCompile, || CompiledCrd::new(&crd)),
            rules: OnceLock::new(),
            kube_version,
            versions,
        }
    }

    fn rules(&self) -> &HashMap<String, Vec<RuleCompileResult>> {
        self.rules.get_or_init(|| {
            timings::time(Stage::CelCompile, || {
                self.versions
                    .iter()
                    .filter_map(|v| {
                        let schema = self.compiled.structural(v)?;
                        let compiled =
                            cel::compile_rules(schema, self.kube_version, &FieldPath::empty());
                        Some((v.clone(), compiled))
                    })
                    .collect()
            })
        })
    }

    /// Runs the create pipeline on one resource: its findings.
    pub fn check(&self, doc: &Node, unknown_fields: UnknownFields) -> Vec<Diagnostic> {
        self.outcome(doc, unknown_fields).diagnostics
    }

    /// Runs the create pipeline on one resource: findings and the stored object.
    pub fn outcome(&self, doc: &Node, unknown_fields: UnknownFields) -> ResourceOutcome {
        let evaluator = CelEvaluator { crd: self };
        let options = Options {
            unknown_fields,
            rules: Some(&evaluator),
        };
        self.compiled.check(doc, &options)
    }
}

/// Evaluates a CRD's compiled CEL rules on a resource, for the resource pipeline.
struct CelEvaluator<'a> {
    crd: &'a PreparedCrd,
}

impl RuleEvaluator for CelEvaluator<'_> {
    fn evaluate(&self, version: &str, schema: &Structural, object: &Node) -> Vec<Diagnostic> {
        let Some(compiled) = self.crd.rules().get(version) else {
            return Vec::new();
        };
        let outcome = cel::evaluate(schema, compiled, object, None);
        let mut diagnostics = outcome.diagnostics;
        // Rules crdlint cannot run yet are said, never silently skipped.
        diagnostics.extend(outcome.not_evaluated.into_iter().map(|n| {
            Diagnostic::new(
                super::CEL_NOT_EVALUATED,
                Severity::Info,
                format!(
                    "{}: rule not evaluated by crdlint ({}): {}",
                    n.field, n.reason, n.rule
                ),
            )
            .with_field(n.field.to_string())
            .with_span(object.span)
        }));
        diagnostics
    }
}
