//! `.crdlint.yaml`: a project's defaults for `crdlint check` (and the CRDs `crdlint
//! explain` reads), found in the working directory or the nearest parent that has one,
//! or named with `--config`. Flags given on the command line win over the file.
//!
//! ```yaml
//! paths: [config/crd, config/samples]   # what `crdlint check` checks by default
//! exclude: ["*.generated.yaml"]         # gitignore-style globs, like --exclude
//! crds: [third_party/crds]              # extra CRD sources, like --crds
//! kube-version: "1.35"                  # like --kube-version
//! unknown-fields: error                 # error | warn | ignore, like --unknown-fields
//! severity:                             # per code: error | warning | info | off
//!   missing-crd: error
//! ```
//!
//! Relative paths in the file are relative to the directory that holds it.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::check::policy::{
    self, KubeVersion, Level, Severities, UNKNOWN_FIELD_POLICIES, UnknownFieldPolicy,
};
use crate::source::yaml::{self, Limits};
use crate::source::{Node, SourceFile, Span, Value};

/// Names looked for, in this order, in each directory.
pub const FILE_NAMES: [&str; 2] = [".crdlint.yaml", ".crdlint.yml"];

/// Keys a configuration file may have.
pub const KEYS: [&str; 6] = [
    "paths",
    "exclude",
    "crds",
    "kube-version",
    "unknown-fields",
    "severity",
];

/// Configuration files larger than this are refused (no real one comes close).
const MAX_SIZE: u64 = 1024 * 1024;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    /// The file it was read from, as found or given.
    pub file: PathBuf,
    /// Paths checked when the command line names none.
    pub paths: Vec<PathBuf>,
    pub exclude: Vec<String>,
    pub crds: Vec<PathBuf>,
    pub kube_version: Option<KubeVersion>,
    pub unknown_fields: Option<UnknownFieldPolicy>,
    pub severities: Severities,
}

/// A configuration file that cannot be used: the run stops with exit status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// `path` or `path:line:column`.
    pub location: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// The configuration file for a run started in `cwd`: in `cwd` or its nearest ancestor
/// that has one. The path is relative to `cwd` when `cwd` is relative (`.crdlint.yaml`,
/// `../.crdlint.yaml`, …) so that paths derived from it read naturally.
pub fn discover(cwd: &Path) -> Option<PathBuf> {
    let absolute = if cwd.is_absolute() {
        cwd.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(cwd)
    };
    for (level, dir) in absolute.ancestors().enumerate() {
        for name in FILE_NAMES {
            // Whatever has the name (a FIFO, a directory) is the configuration the user
            // meant, and `load` says why it cannot be read: skipping it for a parent's
            // would apply settings nobody chose, unseen.
            if dir.join(name).metadata().is_ok() {
                let mut relative = cwd.to_path_buf();
                for _ in 0..level {
                    relative.push("..");
                }
                relative.push(name);
                return Some(clean(&relative));
            }
        }
    }
    None
}

/// `./a/../b` style prefixes of a relative path are noise in messages: drop `.`.
fn clean(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// Reads and validates a configuration file.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let display = path.display().to_string();
    let io = |message: String| ConfigError {
        location: display.clone(),
        message,
    };
    let meta =
        std::fs::metadata(path).map_err(|e| io(crate::source::walk::describe_io_error(&e)))?;
    if !meta.is_file() {
        return Err(io("not a regular file".to_string()));
    }
    if meta.len() > MAX_SIZE {
        return Err(io(format!("larger than {MAX_SIZE} bytes")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
    parse(path, text)
}

/// Parses configuration text; `path` names the file in messages and anchors relative
/// paths.
pub fn parse(path: &Path, text: String) -> Result<Config, ConfigError> {
    let file = SourceFile::new(path.display().to_string(), text);
    let parsed = yaml::parse(&file.text, &Limits::default());
    let reader = Reader { file: &file };
    if let Some(error) = parsed.errors.iter().find(|e| !e.kind.is_warning()) {
        return Err(reader.error(error.span, error.message.clone()));
    }
    let mut config = Config {
        file: path.to_path_buf(),
        ..Config::default()
    };
    let root = match parsed.documents.as_slice() {
        [] => return Ok(config),
        [one] => &one.root,
        [_, second, ..] => {
            return Err(reader.error(
                second.root.span,
                "a configuration file holds one YAML document".to_string(),
            ));
        }
    };
    if root.is_null() {
        return Ok(config);
    }
    let Some(map) = root.as_object() else {
        return Err(reader.error(
            root.span,
            format!("expected a mapping of settings, found {}", root.json_type()),
        ));
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let resolve = |p: String| {
        if base.as_os_str().is_empty() {
            PathBuf::from(p)
        } else {
            clean(&base.join(p))
        }
    };
    for entry in &map.entries {
        let value = &entry.value;
        match entry.key.as_str() {
            "paths" => {
                config.paths = reader.strings(value)?.into_iter().map(resolve).collect();
            }
            "crds" => {
                config.crds = reader.strings(value)?.into_iter().map(resolve).collect();
            }
            "exclude" => config.exclude = reader.exclude_globs(value)?,
            "kube-version" => {
                let text = match &value.value {
                    Value::String(s) => s.clone(),
                    Value::Float(_) | Value::Int(_) => {
                        return Err(reader.error(
                            value.span,
                            "write kube-version as a string, e.g. \"1.30\" (as a YAML number, 1.30 is 1.3)".to_string(),
                        ));
                    }
                    _ => return Err(reader.expected(value, "a string")),
                };
                config.kube_version = Some(
                    policy::parse_kube_version(&text)
                        .map_err(|message| reader.error(value.span, message))?,
                );
            }
            "unknown-fields" => {
                let text = reader.string(value)?;
                config.unknown_fields =
                    Some(policy::parse_unknown_fields(text).ok_or_else(|| {
                        reader.error(
                            value.span,
                            format!(
                                "unknown-fields must be one of {}, not {text:?}",
                                UNKNOWN_FIELD_POLICIES.join(", ")
                            ),
                        )
                    })?);
            }
            "severity" => config.severities = reader.severities(value)?,
            other => {
                let mut message = format!("unknown setting {other:?}");
                match crate::check::suppress::suggest(other, &KEYS) {
                    Some(close) => message.push_str(&format!(" (did you mean {close:?}?)")),
                    None => message.push_str(&format!(" (settings: {})", KEYS.join(", "))),
                }
                return Err(reader.error(entry.key_span, message));
            }
        }
    }
    Ok(config)
}

struct Reader<'a> {
    file: &'a SourceFile,
}

impl Reader<'_> {
    fn error(&self, span: Span, message: String) -> ConfigError {
        let p = self.file.position(span.start);
        ConfigError {
            location: format!("{}:{}:{}", self.file.path, p.line, p.column),
            message,
        }
    }

    fn expected(&self, node: &Node, what: &str) -> ConfigError {
        self.error(
            node.span,
            format!("expected {what}, found {}", node.json_type()),
        )
    }

    fn string<'n>(&self, node: &'n Node) -> Result<&'n str, ConfigError> {
        node.as_str().ok_or_else(|| self.expected(node, "a string"))
    }

    /// A list of strings; a single string is a list of one.
    fn strings(&self, node: &Node) -> Result<Vec<String>, ConfigError> {
        match &node.value {
            Value::String(s) => Ok(vec![s.clone()]),
            Value::Array(items) => items
                .iter()
                .map(|item| self.string(item).map(str::to_string))
                .collect(),
            _ => Err(self.expected(node, "a list of strings")),
        }
    }

    /// Globs checked where they are written (see `walk::parse_exclude_glob`).
    fn exclude_globs(&self, node: &Node) -> Result<Vec<String>, ConfigError> {
        let items = match &node.value {
            Value::Array(items) => items.iter().collect(),
            Value::String(_) => vec![node],
            _ => return Err(self.expected(node, "a list of strings")),
        };
        items
            .into_iter()
            .map(|item| {
                crate::source::walk::parse_exclude_glob(self.string(item)?)
                    .map_err(|message| self.error(item.span, message))
            })
            .collect()
    }

    fn severities(&self, node: &Node) -> Result<Severities, ConfigError> {
        let Some(map) = node.as_object() else {
            return Err(self.expected(node, "a mapping of code to severity"));
        };
        let known: Vec<&str> = crate::codes::all().iter().map(|c| c.code).collect();
        let mut severities = Severities::default();
        for entry in &map.entries {
            if !known.contains(&entry.key.as_str()) {
                let mut message = format!("unknown code {:?}", entry.key);
                if let Some(close) = crate::check::suppress::suggest(&entry.key, &known) {
                    message.push_str(&format!(" (did you mean {close:?}?)"));
                }
                message.push_str("; `crdlint rules` lists every code");
                return Err(self.error(entry.key_span, message));
            }
            // YAML 1.1 readers turn a plain `off` into false; accept both spellings.
            let level = match &entry.value.value {
                Value::Bool(false) => Some(Level::Off),
                Value::String(s) => Level::parse(s),
                _ => None,
            }
            .ok_or_else(|| {
                self.error(
                    entry.value.span,
                    format!(
                        "severity of {} must be one of {}",
                        entry.key,
                        Level::NAMES.join(", ")
                    ),
                )
            })?;
            severities.by_code.insert(entry.key.clone(), level);
        }
        Ok(severities)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Config, ConfigError> {
        parse(Path::new("conf/.crdlint.yaml"), text.to_string())
    }

    #[test]
    fn reads_every_setting_relative_to_the_file() {
        let config = parse_text(
            "paths: [crds, /abs/samples]\nexclude: '*.gen.yaml'\ncrds:\n  - ../vendor/crds\nkube-version: \"v1.30\"\nunknown-fields: warn\nseverity:\n  missing-crd: error\n  duplicate-crd: off\n",
        )
        .unwrap();
        assert_eq!(
            config.paths,
            [PathBuf::from("conf/crds"), PathBuf::from("/abs/samples")]
        );
        assert_eq!(config.exclude, ["*.gen.yaml"]);
        assert_eq!(config.crds, [PathBuf::from("conf/../vendor/crds")]);
        assert_eq!(config.kube_version.unwrap().to_string(), "1.30");
        assert_eq!(config.unknown_fields, Some(UnknownFieldPolicy::Warn));
        assert_eq!(
            config.severities.by_code.into_iter().collect::<Vec<_>>(),
            [
                ("duplicate-crd".to_string(), Level::Off),
                ("missing-crd".to_string(), Level::Error)
            ]
        );
    }

    #[test]
    fn empty_files_are_default_configurations() {
        assert_eq!(parse_text("").unwrap().paths, Vec::<PathBuf>::new());
        assert_eq!(
            parse_text("# nothing yet\n").unwrap().exclude,
            Vec::<String>::new()
        );
    }

    #[test]
    fn mistakes_point_at_their_line_and_column() {
        let error = |text: &str| parse_text(text).unwrap_err().to_string();
        assert_eq!(
            error("paths: [a]\nexlude: [b]\n"),
            "conf/.crdlint.yaml:2:1: unknown setting \"exlude\" (did you mean \"exclude\"?)"
        );
        assert_eq!(
            error("kube-version: 1.30\n"),
            "conf/.crdlint.yaml:1:15: write kube-version as a string, e.g. \"1.30\" (as a YAML number, 1.30 is 1.3)"
        );
        assert_eq!(
            error("severity:\n  missing-crdd: off\n"),
            "conf/.crdlint.yaml:2:3: unknown code \"missing-crdd\" (did you mean \"missing-crd\"?); `crdlint rules` lists every code"
        );
        assert_eq!(
            error("severity:\n  missing-crd: loud\n"),
            "conf/.crdlint.yaml:2:16: severity of missing-crd must be one of error, warning, info, off"
        );
        assert_eq!(
            error("unknown-fields: drop\n"),
            "conf/.crdlint.yaml:1:17: unknown-fields must be one of error, warn, ignore, not \"drop\""
        );
        assert_eq!(
            error("paths: {a: 1}\n"),
            "conf/.crdlint.yaml:1:8: expected a list of strings, found object"
        );
        assert_eq!(
            error("exclude:\n- ok/\n- 'gen/[a-'\n"),
            "conf/.crdlint.yaml:3:3: invalid glob \"gen/[a-\": unclosed character class; missing ']'"
        );
        assert_eq!(
            error("exclude: {a: 1}\n"),
            "conf/.crdlint.yaml:1:10: expected a list of strings, found object"
        );
        assert_eq!(
            error("- a\n"),
            "conf/.crdlint.yaml:1:1: expected a mapping of settings, found array"
        );
    }

    #[test]
    fn discovery_walks_up_and_answers_relative_to_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(dir.path().join(".crdlint.yaml"), "").unwrap();
        assert_eq!(
            discover(&deep),
            Some(deep.join("../../.crdlint.yaml").components().collect())
        );
        std::fs::write(deep.join(".crdlint.yml"), "").unwrap();
        assert_eq!(discover(&deep), Some(deep.join(".crdlint.yml")));
        // Not a regular file: found all the same, for `load` to refuse.
        let middle = dir.path().join("a");
        std::fs::create_dir(middle.join(".crdlint.yaml")).unwrap();
        assert_eq!(discover(&middle), Some(middle.join(".crdlint.yaml")));
        assert_eq!(
            load(&middle.join(".crdlint.yaml")).unwrap_err().to_string(),
            format!(
                "{}: not a regular file",
                middle.join(".crdlint.yaml").display()
            )
        );
    }
}
