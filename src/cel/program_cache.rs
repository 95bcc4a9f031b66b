//! Compiled rules shared across the nodes, versions and CRDs of a process.
//!
//! A rule's program depends only on its text, its `messageExpression`, whether
//! `oldSelf` is optional, whether it stands where `oldSelf` cannot be correlated, the
//! environments it compiles in, and the declared type of its node (which
//! [`DeclType::fingerprint`](super::schema_types::DeclType::fingerprint) digests).
//! Identical versions of a CRD and CRDs that share subschemas (a project's standard and
//! experimental channels) repeat rules on identical types: of the corpus's 1,686 rule
//! compilations, 543 are distinct.
//!
//! Only rules that compile cleanly are kept: a finding carries its place (field path,
//! span), so a rule with one is compiled again where it stands.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use super::compile::RuleProgram;
use super::env::KubeVersion;

/// Beyond this many programs, new ones are no longer kept (a bound on the memory of a
/// process that compiles ever new rules).
const MAX_PROGRAMS: usize = 1 << 16;

/// What a rule's program depends on.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct ProgramKey {
    pub rule: String,
    pub message_expression: Option<String>,
    pub optional_old_self: Option<bool>,
    /// The rule stands below a list or map whose items cannot be correlated.
    pub uncorrelatable: bool,
    /// The fingerprint of the node's declared type.
    pub decl: u128,
    /// The environments of the walk, the rule and its messageExpression, by version
    /// (an environment is built from its version alone,
    /// [`Env::for_compatibility`](super::env::Env::for_compatibility)).
    pub walk_env: KubeVersion,
    pub rule_env: KubeVersion,
    pub message_env: KubeVersion,
}

static PROGRAMS: LazyLock<Mutex<HashMap<ProgramKey, Arc<RuleProgram>>>> =
    LazyLock::new(Default::default);

fn programs() -> MutexGuard<'static, HashMap<ProgramKey, Arc<RuleProgram>>> {
    // A panic elsewhere while the lock was held cannot leave a half-written entry.
    PROGRAMS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The program compiled earlier for `key`.
pub(super) fn get(key: &ProgramKey) -> Option<Arc<RuleProgram>> {
    programs().get(key).cloned()
}

/// Keeps a program that compiled without findings.
pub(super) fn put(key: ProgramKey, program: &Arc<RuleProgram>) {
    let mut programs = programs();
    if programs.len() < MAX_PROGRAMS {
        programs.entry(key).or_insert_with(|| program.clone());
    }
}
