//! Custom resources: each CRD of the run is prepared once (structural schemas,
//! validators, compiled CEL programs — the latter only when a resource needs them),
//! shared read-only across workers, and every resource runs the server's create
//! pipeline against it.

use crate::cel::KubeVersion;
use crate::cel::eval::CrdRules;
use crate::diag::Diagnostic;
use crate::model::crd::Crd;
use crate::schema::resource::{
    CompiledCrd, Options, ResourceOutcome, RuleEvaluator, UnknownFields,
};
use crate::schema::structural::Structural;
use crate::schema::structural::sink::StructuralSink;
use crate::source::Node;

/// A CRD ready for resources: its structural schemas and validators, and its CEL
/// programs (compiled once per version, on first use).
pub struct PreparedCrd {
    pub compiled: CompiledCrd,
    rules: CrdRules,
}

impl PreparedCrd {
    pub fn new(root: &Node, kube_version: KubeVersion) -> PreparedCrd {
        let (crd, _) = crate::model::crd::decode(root);
        Self::from_model(&crd, kube_version, None)
    }

    /// [`PreparedCrd::new`] of a CRD already decoded, reusing the structural schemas
    /// its validation built (`built`).
    pub fn from_model(
        crd: &Crd,
        kube_version: KubeVersion,
        built: Option<&StructuralSink>,
    ) -> PreparedCrd {
        PreparedCrd {
            compiled: CompiledCrd::new_reusing(crd, kube_version, built),
            rules: CrdRules::new(kube_version),
        }
    }

    /// Runs the create pipeline on one resource: its findings.
    pub fn check(&self, doc: &Node, unknown_fields: UnknownFields) -> Vec<Diagnostic> {
        self.outcome(doc, unknown_fields).diagnostics
    }

    /// Runs the create pipeline on one resource: findings and the stored object.
    pub fn outcome(&self, doc: &Node, unknown_fields: UnknownFields) -> ResourceOutcome {
        self.outcome_with_old(doc, None, unknown_fields)
    }

    /// Runs the update pipeline when `old` is given (the object as stored), else the
    /// create pipeline.
    pub fn outcome_with_old(
        &self,
        doc: &Node,
        old: Option<&Node>,
        unknown_fields: UnknownFields,
    ) -> ResourceOutcome {
        let evaluator = CelEvaluator { rules: &self.rules };
        let options = Options {
            unknown_fields,
            rules: Some(&evaluator),
        };
        match old {
            Some(old) => self.compiled.check_update(doc, old, &options),
            None => self.compiled.check(doc, &options),
        }
    }
}

/// The resource pipeline's seam to CEL: evaluates a version's compiled rules on the
/// validated, defaulted object.
struct CelEvaluator<'a> {
    rules: &'a CrdRules,
}

impl RuleEvaluator for CelEvaluator<'_> {
    fn evaluate(&self, version: &str, schema: &Structural, object: &Node) -> Vec<Diagnostic> {
        self.evaluate_update(version, schema, object, None)
    }

    /// An update (`crdlint check --old`): `oldSelf` and ratcheting see the old object.
    fn evaluate_update(
        &self,
        version: &str,
        schema: &Structural,
        object: &Node,
        old: Option<&Node>,
    ) -> Vec<Diagnostic> {
        let outcome = self.rules.evaluate_update(version, schema, object, old);
        let mut diagnostics = outcome.diagnostics;
        diagnostics.extend(outcome.warnings);
        // Rules crdlint cannot run are said, never silently skipped.
        diagnostics.extend(outcome.not_evaluated.into_iter().map(|n| {
            Diagnostic::warning(
                super::CEL_NOT_EVALUATED,
                format!(
                    "{}: rule not evaluated by crdlint ({}): {}",
                    n.field, n.reason, n.rule
                ),
            )
            .with_field(n.field.to_string())
            .with_span(n.span)
        }));
        diagnostics
    }
}
