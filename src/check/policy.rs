//! The user's choices that shape a run beyond which paths to read: the Kubernetes
//! version to follow, what to do with fields no schema declares, and the severity of
//! each code. They come from flags or `.crdlint.yaml`; the pipeline only reads them.

use std::collections::BTreeMap;

use crate::diag::{Diagnostic, Severity};

pub use crate::cel::KubeVersion;
pub use crate::schema::resource::UnknownFields as UnknownFieldPolicy;

/// Parses a user's `--kube-version` / `kube-version`: `1.35`, `v1.35` or `1.35.2` (the
/// patch level does not change semantics), within the versions crdlint knows.
pub fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    let invalid =
        || format!("invalid Kubernetes version {text:?}: expected MAJOR.MINOR, e.g. \"1.35\"");
    let trimmed = text.trim();
    let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
    let mut parts = bare.split('.');
    let number = |part: Option<&str>| -> Option<u32> {
        let part = part?;
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || part.len() > 4 {
            return None;
        }
        part.parse().ok()
    };
    let major = number(parts.next()).ok_or_else(invalid)?;
    let minor = number(parts.next()).ok_or_else(invalid)?;
    if let Some(patch) = parts.next() {
        number(Some(patch)).ok_or_else(invalid)?;
    }
    if parts.next().is_some() {
        return Err(invalid());
    }
    let version = KubeVersion::new(major, minor);
    if !(KubeVersion::OLDEST..=KubeVersion::NEWEST).contains(&version) {
        return Err(format!(
            "unsupported Kubernetes version {text:?}: crdlint knows {} to {}",
            KubeVersion::OLDEST,
            KubeVersion::NEWEST
        ));
    }
    Ok(version)
}

/// The names of [`UnknownFieldPolicy`] values in flags and configuration.
pub const UNKNOWN_FIELD_POLICIES: [&str; 3] = ["error", "warn", "ignore"];

pub fn parse_unknown_fields(text: &str) -> Option<UnknownFieldPolicy> {
    match text {
        "error" => Some(UnknownFieldPolicy::Error),
        "warn" => Some(UnknownFieldPolicy::Warn),
        "ignore" => Some(UnknownFieldPolicy::Ignore),
        _ => None,
    }
}

/// The severity a user gives a code, or `Off` to drop its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Info,
    Off,
}

impl Level {
    pub const NAMES: [&str; 4] = ["error", "warning", "info", "off"];

    pub fn parse(text: &str) -> Option<Level> {
        match text {
            "error" => Some(Level::Error),
            "warning" => Some(Level::Warning),
            "info" => Some(Level::Info),
            "off" => Some(Level::Off),
            _ => None,
        }
    }
}

/// Severity overrides by code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Severities {
    pub by_code: BTreeMap<String, Level>,
}

impl Severities {
    /// Re-levels diagnostics of overridden codes and drops those turned off.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.by_code.is_empty() {
            return;
        }
        diagnostics.retain_mut(|d| match self.by_code.get(d.code) {
            None => true,
            Some(Level::Off) => false,
            Some(level) => {
                d.severity = match level {
                    Level::Error => Severity::Error,
                    Level::Warning => Severity::Warning,
                    _ => Severity::Info,
                };
                true
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_versions_parse_strictly() {
        let v = parse_kube_version("1.35").unwrap();
        assert_eq!((v.major, v.minor), (1, 35));
        assert_eq!(parse_kube_version("v1.30.2").unwrap().to_string(), "1.30");
        assert_eq!(
            parse_kube_version("1").unwrap_err(),
            "invalid Kubernetes version \"1\": expected MAJOR.MINOR, e.g. \"1.35\""
        );
        assert!(parse_kube_version("1.x").is_err());
        assert!(parse_kube_version("1.2.3.4").is_err());
        assert!(parse_kube_version("1.-2").is_err());
        assert_eq!(
            parse_kube_version("1.20").unwrap_err(),
            format!(
                "unsupported Kubernetes version \"1.20\": crdlint knows {} to {}",
                KubeVersion::OLDEST,
                KubeVersion::NEWEST
            )
        );
    }

    #[test]
    fn severities_relevel_and_drop() {
        let mut severities = Severities::default();
        severities.by_code.insert("a".into(), Level::Error);
        severities.by_code.insert("b".into(), Level::Off);
        let mut diagnostics = vec![
            Diagnostic::warning("a", "x"),
            Diagnostic::warning("b", "y"),
            Diagnostic::warning("c", "z"),
        ];
        severities.apply(&mut diagnostics);
        let got: Vec<(&str, Severity)> = diagnostics.iter().map(|d| (d.code, d.severity)).collect();
        assert_eq!(got, [("a", Severity::Error), ("c", Severity::Warning)]);
    }
}
