//! Custom resources: each CRD of the run is prepared once (structural schemas,
//! validators, compiled CEL programs — the latter only when a resource needs them),
//! shared read-only across workers, and every resource runs the server's create
//! pipeline against it.

use crate::cel::KubeVersion;
use crate::cel::eval::CrdRules;
use crate::diag::Diagnostic;
use crate::schema::resource::{CompiledCrd, Options, ResourceOutcome, UnknownFields};
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
        PreparedCrd {
            compiled: CompiledCrd::new(&crd),
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
        let options = Options {
            unknown_fields,
            rules: Some(&self.rules),
        };
        match old {
            Some(old) => self.compiled.check_update(doc, old, &options),
            None => self.compiled.check(doc, &options),
        }
    }
}
