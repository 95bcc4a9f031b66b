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
        let mut compiled = CompiledCrd::new_reusing(crd, kube_version, built);
        let rules = CrdRules::new(kube_version);
        for (version, schema, results) in compiled.take_compiled_rules() {
            rules.prefill(version, schema, results);
        }
        PreparedCrd { compiled, rules }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::Options as CrdOptions;
    use crate::source::yaml::{Limits, parse};

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.x.io}
spec:
  group: x.io
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.replicas <= self.max
              message: too many replicas
            properties:
              replicas: {type: integer}
              max: {type: integer}
";

    const WIDGET: &str = "apiVersion: x.io/v1
kind: Widget
metadata: {name: a, namespace: b}
spec: {replicas: 5, max: 3}
";

    fn root(text: &str) -> Node {
        parse(text, &Limits::default()).documents.remove(0).root
    }

    /// The rules CRD validation compiled are handed on: the prepared CRD starts with
    /// them cached and finds what a CRD prepared on its own finds.
    #[test]
    fn rules_compiled_by_validation_are_reused_for_resources() {
        let crd = root(CRD);
        let (model, decode_errors) = crate::model::crd::decode(&crd);
        let sink = StructuralSink::default();
        let options = CrdOptions {
            structurals: Some(&sink),
            ..CrdOptions::default()
        };
        let findings = crate::crd::validate_decoded(&crd, &model, decode_errors, &options);
        assert!(findings.is_empty(), "{findings:?}");
        let reused = PreparedCrd::from_model(&model, KubeVersion::NEWEST, Some(&sink));
        assert_eq!(reused.rules.cached(), 1);
        let alone = PreparedCrd::new(&crd, KubeVersion::NEWEST);
        assert_eq!(alone.rules.cached(), 0);

        let widget = root(WIDGET);
        let found = reused.check(&widget, UnknownFields::Error);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].message, "spec: Invalid value: too many replicas");
        // The check found the prefilled programs: nothing was compiled again.
        assert_eq!(reused.rules.cached(), 1);
        let expected = alone.check(&widget, UnknownFields::Error);
        assert_eq!(format!("{found:?}"), format!("{expected:?}"));
        assert_eq!(alone.rules.cached(), 1);
    }
}
