//! Turning the user's paths into the list of files to read: directories are walked
//! with ripgrep's walker (`.gitignore` honoured, hidden directories and `target/`
//! skipped, symlinks followed with loop detection); files named explicitly are always
//! read, whatever their extension. A directory or file reached by several paths (symlinks,
//! or a root named twice) is read once, under the first path in name order.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

mod ignore_rules;

use ignore_rules::IgnoreRules;

/// Where a document comes from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Input {
    Path(PathBuf),
    Stdin,
}

impl Input {
    /// The name shown in diagnostics.
    pub fn display(&self) -> String {
        match self {
            Input::Path(p) => display_path(p),
            Input::Stdin => "-".to_string(),
        }
    }
}

/// Paths are shown as the user gave them, without a leading `./` added by walking.
fn display_path(path: &Path) -> String {
    let s = readable(path);
    match s.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s.into_owned(),
    }
}

/// The path as text; bytes that are not UTF-8 (possible in Unix file names) are written
/// `\xff`, so that two such names stay apart (`to_string_lossy` made both `�.yaml`).
fn readable(path: &Path) -> std::borrow::Cow<'_, str> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        if path.to_str().is_none() {
            let mut out = String::new();
            for chunk in path.as_os_str().as_bytes().utf8_chunks() {
                out.push_str(chunk.valid());
                for byte in chunk.invalid() {
                    out.push_str(&format!("\\x{byte:02x}"));
                }
            }
            return out.into();
        }
    }
    path.to_string_lossy()
}

#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// Globs of paths to leave out (gitignore syntax, relative to each walked root).
    pub exclude: Vec<String>,
    /// Do not honour `.gitignore` / `.ignore` files.
    pub no_ignore: bool,
}

/// A path that could not be walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkError {
    pub path: String,
    pub message: String,
}

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

fn has_manifest_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// Checks an `--exclude` glob (gitignore syntax) before any walk, so that a mistake is
/// reported where it was written: as a usage error, or at its line in `.crdlint.yaml`.
pub fn parse_exclude_glob(glob: &str) -> Result<String, String> {
    // The walker adds each glob as a negated override; check it the same way.
    match OverrideBuilder::new("/").add(&format!("!{glob}")) {
        Ok(_) => Ok(glob.to_string()),
        Err(ignore::Error::Glob { err, .. }) => Err(format!("invalid glob {glob:?}: {err}")),
        Err(other) => Err(format!("invalid glob {glob:?}: {other}")),
    }
}

/// A file or directory as the filesystem knows it, whichever path reached it.
#[cfg(unix)]
type Identity = (u64, u64);
#[cfg(not(unix))]
type Identity = PathBuf;

/// The identity of what `path` names (symlinks followed), or `None` when it cannot be
/// read; the reader or the walker then reports the error.
#[cfg(unix)]
fn identity(path: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<Identity> {
    std::fs::canonicalize(path).ok()
}

/// Directories already walked, shared by every root of one run. Followed symlinks
/// make a directory graph, not a tree: `/sys`, or a crafted repository whose every
/// level links twice to the next, has exponentially many paths without any loop, so
/// each directory is entered once.
type Visited = Arc<Mutex<HashSet<Identity>>>;

/// Expands `paths` (`-` is stdin) into inputs, sorted and deduplicated.
pub fn collect(paths: &[PathBuf], options: &WalkOptions) -> (Vec<Input>, Vec<WalkError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    let visited = Visited::default();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
            continue;
        }
        match std::fs::metadata(path) {
            Err(e) => errors.push(WalkError {
                path: display_path(path),
                message: describe_io_error(&e),
            }),
            Ok(meta) if meta.is_dir() => {
                walk_dir(path, options, &visited, &mut inputs, &mut errors)
            }
            // A file named explicitly is read whatever its extension or type; the
            // reader rejects FIFOs and devices with a clear message.
            Ok(_) => inputs.push(Input::Path(path.clone())),
        }
    }
    inputs.sort();
    inputs.dedup();
    drop_second_paths_to_a_file(&mut inputs);
    // Roots with a common ancestor read its ignore files once each: one error each time.
    let mut seen = HashSet::new();
    errors.retain(|e| seen.insert((e.path.clone(), e.message.clone())));
    (inputs, errors)
}

/// A file linked under two names, or named once and found again in a walk, would be
/// read twice and define its CRDs twice; the first path in name order is kept.
fn drop_second_paths_to_a_file(inputs: &mut Vec<Input>) {
    let mut seen = HashSet::new();
    inputs.retain(|input| match input {
        Input::Path(path) => identity(path).is_none_or(|id| seen.insert(id)),
        Input::Stdin => true,
    });
}

fn walk_dir(
    root: &Path,
    options: &WalkOptions,
    visited: &Visited,
    inputs: &mut Vec<Input>,
    errors: &mut Vec<WalkError>,
) {
    if let Some(id) = identity(root)
        && !lock(visited).insert(id)
    {
        // Walked already, as (part of) an earlier root.
        return;
    }
    let visited = Arc::clone(visited);
    let rules = (!options.no_ignore).then(|| Arc::new(IgnoreRules::new(root)));
    let rules_of_walk = rules.clone();
    let mut builder = WalkBuilder::new(root);
    builder
        // Name order makes "the first path to a directory" the same on every machine.
        .sort_by_file_name(|a, b| a.cmp(b))
        .follow_links(true)
        // Ignore files are read by `IgnoreRules` (safely), and hidden names are left
        // out there too, because a `!pattern` can bring one back.
        .hidden(false)
        .git_ignore(false)
        .git_exclude(false)
        .git_global(false)
        .ignore(false)
        .parents(false)
        .require_git(false)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let matched = rules_of_walk
                .as_ref()
                .map_or(ignore::Match::None, |r| r.matched(entry.path(), is_dir));
            let hidden = entry.file_name().as_encoded_bytes().starts_with(b".");
            if matched.is_ignore() || (matched.is_none() && hidden) {
                return false;
            }
            if !is_dir {
                return true;
            }
            // Build output is never a manifest source.
            entry.file_name() != "target"
                && identity(entry.path()).is_none_or(|id| lock(&visited).insert(id))
        });
    if !options.exclude.is_empty() {
        let mut overrides = OverrideBuilder::new(root);
        for glob in &options.exclude {
            if let Err(e) = overrides.add(&format!("!{glob}")) {
                errors.push(WalkError {
                    path: glob.clone(),
                    message: format!("invalid --exclude glob: {e}"),
                });
            }
        }
        match overrides.build() {
            Ok(o) => {
                builder.overrides(o);
            }
            Err(e) => errors.push(WalkError {
                path: root.display().to_string(),
                message: format!("invalid --exclude globs: {e}"),
            }),
        }
    }
    for entry in builder.build() {
        match entry {
            Ok(entry) => {
                // Not only regular files: a FIFO, socket or device named like a
                // manifest is reported by the reader (never opened), not skipped unseen.
                let is_dir = entry.file_type().is_none_or(|t| t.is_dir());
                if !is_dir && entry.depth() > 0 && has_manifest_extension(entry.path()) {
                    inputs.push(Input::Path(entry.into_path()));
                }
            }
            Err(e) => errors.push(WalkError {
                path: error_path(&e).unwrap_or_else(|| display_path(root)),
                message: describe_walk_error(&e),
            }),
        }
    }
    if let Some(rules) = rules {
        errors.extend(rules.take_errors());
    }
}

/// The set survives a panic elsewhere: it only ever grows, so it is never inconsistent.
fn lock(visited: &Visited) -> std::sync::MutexGuard<'_, HashSet<Identity>> {
    visited
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn error_path(error: &ignore::Error) -> Option<String> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(display_path(path)),
        ignore::Error::Loop { child, .. } => Some(display_path(child)),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

fn describe_walk_error(error: &ignore::Error) -> String {
    match error {
        ignore::Error::Loop { ancestor, .. } => format!(
            "symbolic link loop: this directory is its own ancestor {}; not followed",
            display_path(ancestor)
        ),
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => describe_walk_error(err),
        ignore::Error::Io(e) => describe_io_error(e),
        other => other.to_string(),
    }
}

/// I/O errors in words a user acts on.
pub fn describe_io_error(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        // The system's words in the style of the two above: `Not a directory (os error
        // 20)` reads as `not a directory`.
        _ => {
            let text = error.to_string();
            let text = match (error.raw_os_error(), text.rfind(" (os error ")) {
                (Some(_), Some(at)) => &text[..at],
                _ => &text,
            };
            let mut chars = text.chars();
            match chars.next() {
                Some(first) if chars.clone().next().is_some_and(char::is_lowercase) => {
                    first.to_lowercase().chain(chars).collect()
                }
                _ => text.to_string(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(inputs: &[Input]) -> Vec<String> {
        inputs.iter().map(|i| i.display()).collect()
    }

    #[test]
    fn system_errors_read_like_the_others() {
        let os = |code| describe_io_error(&std::io::Error::from_raw_os_error(code));
        #[cfg(target_os = "linux")]
        {
            assert_eq!(os(20), "not a directory");
            assert_eq!(os(5), "input/output error");
            assert_eq!(os(28), "no space left on device");
        }
        assert_eq!(os(2), "no such file or directory");
        let custom = std::io::Error::other("EOF while reading (os error 3)");
        assert_eq!(describe_io_error(&custom), "EOF while reading (os error 3)");
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_stay_apart() {
        use std::os::unix::ffi::OsStrExt;
        let name = |bytes: &[u8]| Input::Path(std::ffi::OsStr::from_bytes(bytes).into());
        assert_eq!(name(b"d/\xff.yaml").display(), "d/\\xff.yaml");
        assert_eq!(name(b"./\xfe\xc3\xa9.yaml").display(), "\\xfe\u{e9}.yaml");
        assert_eq!(name("é.yaml".as_bytes()).display(), "é.yaml");
    }

    #[test]
    fn walks_manifests_skipping_hidden_target_and_excluded() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "a.yaml",
            "b.yml",
            "c.json",
            "d.txt",
            ".hidden/e.yaml",
            "target/f.yaml",
            "sub/g.YAML",
            "vendor/h.yaml",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "a: 1").unwrap();
        }
        let options = WalkOptions {
            exclude: vec!["vendor/".into()],
            no_ignore: false,
        };
        let (inputs, errors) = collect(&[root.to_path_buf()], &options);
        assert!(errors.is_empty(), "{errors:?}");
        let prefix = format!("{}/", root.display());
        let rel: Vec<String> = names(&inputs)
            .into_iter()
            .map(|n| n.trim_start_matches(&prefix).to_string())
            .collect();
        assert_eq!(rel, ["a.yaml", "b.yml", "c.json", "sub/g.YAML"]);
    }

    #[test]
    fn missing_path_is_an_error_and_stdin_is_an_input() {
        let (inputs, errors) = collect(
            &[PathBuf::from("-"), PathBuf::from("no/such/file.yaml")],
            &WalkOptions::default(),
        );
        assert_eq!(inputs, [Input::Stdin]);
        assert_eq!(
            errors,
            [WalkError {
                path: "no/such/file.yaml".into(),
                message: "no such file or directory".into()
            }]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_are_reported_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("d")).unwrap();
        std::fs::write(root.join("d/x.yaml"), "a: 1").unwrap();
        std::os::unix::fs::symlink(root.join("d"), root.join("d/loop")).unwrap();
        let (inputs, errors) = collect(&[root.to_path_buf()], &WalkOptions::default());
        assert_eq!(inputs.len(), 1);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].message.starts_with("symbolic link loop"),
            "{errors:?}"
        );
    }

    /// Every level links twice to the next: 2^30 paths to the last level, no loop.
    #[cfg(unix)]
    #[test]
    fn a_directory_reached_by_many_symlink_paths_is_walked_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let levels = 30;
        for level in 0..=levels {
            std::fs::create_dir(root.join(format!("l{level}"))).unwrap();
            std::fs::write(root.join(format!("l{level}/x.yaml")), "a: 1").unwrap();
        }
        for level in 0..levels {
            for link in ["a", "b"] {
                std::os::unix::fs::symlink(
                    root.join(format!("l{}", level + 1)),
                    root.join(format!("l{level}/{link}")),
                )
                .unwrap();
            }
        }
        let (inputs, errors) = collect(&[root.join("l0")], &WalkOptions::default());
        assert!(errors.is_empty(), "{errors:?}");
        let prefix = format!("{}/", root.join("l0").display());
        let rel: Vec<String> = names(&inputs)
            .into_iter()
            .map(|n| n.trim_start_matches(&prefix).to_string())
            .collect();
        // Depth first in name order: l1 is first reached as l0/a, l2 as l0/a/a, ...
        let mut expected: Vec<String> = (0..=levels)
            .map(|depth| format!("{}x.yaml", "a/".repeat(depth)))
            .collect();
        expected.sort();
        assert_eq!(rel, expected);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_under_two_names_is_read_once_under_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("config/crd")).unwrap();
        std::fs::create_dir_all(root.join("charts/app")).unwrap();
        std::fs::write(root.join("config/crd/x.yaml"), "a: 1").unwrap();
        std::os::unix::fs::symlink("../../config/crd", root.join("charts/app/crds")).unwrap();
        std::os::unix::fs::symlink("config/crd/x.yaml", root.join("z.yaml")).unwrap();
        let (inputs, errors) = collect(
            &[
                root.to_path_buf(),
                root.join("z.yaml"),
                root.join("config/crd"),
            ],
            &WalkOptions::default(),
        );
        assert!(errors.is_empty(), "{errors:?}");
        let prefix = format!("{}/", root.display());
        let rel: Vec<String> = names(&inputs)
            .into_iter()
            .map(|n| n.trim_start_matches(&prefix).to_string())
            .collect();
        assert_eq!(rel, ["charts/app/crds/x.yaml"]);
    }
}
