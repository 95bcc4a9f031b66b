//! Paths as code-scanning services want them: relative to the repository root, with
//! forward slashes, whatever directory crdlint ran in and however the user spelled the
//! path.

use std::path::{Component, Path, PathBuf};

/// Where relative paths start (the working directory) and what they are made relative to
/// (the repository root: the nearest ancestor holding `.git`, else the working
/// directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoPaths {
    pub cwd: PathBuf,
    pub root: PathBuf,
}

impl RepoPaths {
    /// From the process's working directory.
    pub fn from_env() -> RepoPaths {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let root = cwd
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(&cwd)
            .to_path_buf();
        RepoPaths { cwd, root }
    }

    /// Paths relative to a fixed directory that is also the root (for tests).
    pub fn fixed(dir: impl Into<PathBuf>) -> RepoPaths {
        let dir = dir.into();
        RepoPaths {
            cwd: dir.clone(),
            root: dir,
        }
    }

    /// The path of a diagnostic's file relative to the repository root with `/`
    /// separators; `None` for stdin and for files outside the repository (those keep
    /// their absolute path, see [`RepoPaths::absolute`]).
    pub fn relative(&self, path: &str) -> Option<String> {
        if path == "-" || path.is_empty() {
            return None;
        }
        let absolute = self.absolute(path);
        let rest = absolute.strip_prefix(normalize(&self.root)).ok()?;
        // Only names below the root: with no working directory to go by (it was
        // deleted), the root is `.`, which every absolute path "starts with"; its `/`
        // made `//work/a.yaml`.
        let parts: Vec<String> = rest
            .components()
            .map(|c| match c {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Option<_>>()?;
        (!parts.is_empty()).then(|| parts.join("/"))
    }

    /// The path made absolute against the working directory, `.` and `..` resolved
    /// lexically (symbolic links are left as the user named them).
    pub fn absolute(&self, path: &str) -> PathBuf {
        normalize(&self.cwd.join(path))
    }
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Percent-encodes a relative path for a URI reference (RFC 3986): everything but
/// unreserved characters, sub-delimiters that are safe in paths, `/`, `:` and `@`.
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'/'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b'@' => out.push(byte as char),
            // A colon is legal in a path but would read as a scheme in the first segment.
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// A `file://` URI for an absolute path (files outside the repository).
pub fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let encoded = uri_path(&text);
    if encoded.starts_with('/') {
        format!("file://{encoded}")
    } else {
        format!("file:///{encoded}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_repository_relative_with_forward_slashes() {
        let paths = RepoPaths {
            cwd: PathBuf::from("/repo/deploy"),
            root: PathBuf::from("/repo"),
        };
        assert_eq!(
            paths.relative("crds/a.yaml").as_deref(),
            Some("deploy/crds/a.yaml")
        );
        assert_eq!(
            paths.relative("./x/../b.yaml").as_deref(),
            Some("deploy/b.yaml")
        );
        assert_eq!(paths.relative("../top.yaml").as_deref(), Some("top.yaml"));
        assert_eq!(
            paths.relative("/repo/abs.yaml").as_deref(),
            Some("abs.yaml")
        );
        assert_eq!(paths.relative("/elsewhere/o.yaml"), None);
        assert_eq!(paths.relative("-"), None);
    }

    #[test]
    fn without_a_working_directory_only_relative_paths_are_relative() {
        // What `from_env` builds when the working directory was deleted.
        let paths = RepoPaths::fixed(".");
        assert_eq!(paths.relative("/work/a.yaml"), None);
        assert_eq!(paths.relative("a/b.yaml").as_deref(), Some("a/b.yaml"));
        assert_eq!(paths.relative("../c.yaml"), None);
    }

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(uri_path("a b/c%d:é.yaml"), "a%20b/c%25d%3A%C3%A9.yaml");
        assert_eq!(
            file_uri(Path::new("/tmp/x y.yaml")),
            "file:///tmp/x%20y.yaml"
        );
    }
}
