//! The `.ignore`, `.gitignore` and `.git/info/exclude` rules of one walk, read by crdlint
//! rather than by the walker crate, which opens them unchecked: a FIFO named `.gitignore`
//! blocked the walk forever, and an `.ignore` linked to `/dev/zero` grew one endless
//! line until memory ran out. Here each is read like a manifest is (regular files only,
//! a size limit, UTF-8), and one that cannot be read is reported, not skipped unseen.
//!
//! The precedence is the walker's (`ignore` 0.4 with `require_git(false)`): for a path,
//! the nearest directory whose `.ignore` has a matching pattern decides; failing that,
//! the nearest whose `.gitignore` matches; failing that, `info/exclude` of the nearest
//! repository. Directories above the walked root count too (`parents`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::{WalkError, display_path};
use crate::source::read::{ReadError, read_bytes};

/// The largest ignore file read. The largest `.gitignore` files of big monorepos are tens
/// of kilobytes; past this, the patterns would cost more to compile than the walk.
pub(super) const IGNORE_FILE_LIMIT: u64 = 1 << 20;

/// The rules of one directory; `None` fields had no file (or no pattern).
struct DirRules {
    ignore: Option<Gitignore>,
    git_ignore: Option<Gitignore>,
    git_exclude: Option<Gitignore>,
}

/// The directories with rules, from a directory up to `/`. Directories without rules
/// share their parent's chain, so matching looks only at the ones that have some.
struct Chain {
    rules: DirRules,
    parent: Option<Arc<Chain>>,
}

type Link = Option<Arc<Chain>>;

/// The rules met during one walk: a directory's are read the first time a path in it is
/// matched (the walker never asks about paths in a directory it skipped).
pub(super) struct IgnoreRules {
    /// The walked root as the walker names its entries.
    root: PathBuf,
    /// The root made absolute, the base of every path matched (patterns anchored with
    /// `/` in a directory above the root need the root's real place).
    base: PathBuf,
    /// The chain of the directories above the root.
    above_root: Link,
    /// Directories (relative to the root) already read.
    chains: Mutex<HashMap<PathBuf, Link>>,
    errors: Mutex<Vec<WalkError>>,
}

impl IgnoreRules {
    /// Reads the rules of the directories above `root` at once.
    pub(super) fn new(root: &Path) -> IgnoreRules {
        let base = std::fs::canonicalize(root).ok();
        let mut rules = IgnoreRules {
            root: root.to_path_buf(),
            base: base.clone().unwrap_or_else(|| root.to_path_buf()),
            above_root: None,
            chains: Mutex::default(),
            errors: Mutex::default(),
        };
        // Without an absolute base (the root vanished), there are no known parents.
        if let Some(base) = base {
            let mut ancestors: Vec<&Path> = base.ancestors().skip(1).collect();
            ancestors.reverse();
            for dir in ancestors {
                rules.above_root = rules.extend(rules.above_root.clone(), dir, dir);
            }
        }
        rules
    }

    /// Whether the walked `path` (below the root) is ignored, whitelisted (`!pattern`),
    /// or neither.
    pub(super) fn matched(&self, path: &Path, is_dir: bool) -> Match<()> {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return Match::None;
        };
        let dir = relative.parent().unwrap_or(Path::new(""));
        let chain = self.chain(dir);
        let absolute = self.base.join(relative);
        let first = |pick: fn(&DirRules) -> Option<&Gitignore>| {
            let mut link = chain.as_deref();
            while let Some(node) = link {
                if let Some(rules) = pick(&node.rules) {
                    match rules.matched(&absolute, is_dir) {
                        Match::None => {}
                        Match::Ignore(_) => return Match::Ignore(()),
                        Match::Whitelist(_) => return Match::Whitelist(()),
                    }
                }
                link = node.parent.as_deref();
            }
            Match::None
        };
        let by_ignore = first(|r| r.ignore.as_ref());
        if !by_ignore.is_none() {
            return by_ignore;
        }
        let by_gitignore = first(|r| r.git_ignore.as_ref());
        if !by_gitignore.is_none() {
            return by_gitignore;
        }
        first(|r| r.git_exclude.as_ref())
    }

    /// The files that could not be read, each once.
    pub(super) fn take_errors(&self) -> Vec<WalkError> {
        std::mem::take(&mut *lock(&self.errors))
    }

    /// The chain of `dir` (relative to the root), reading it and any parent not yet read.
    fn chain(&self, dir: &Path) -> Link {
        if let Some(link) = lock(&self.chains).get(dir) {
            return link.clone();
        }
        let parent = match dir.parent() {
            Some(parent) => self.chain(parent),
            None => self.above_root.clone(),
        };
        let link = self.extend(parent, &self.base.join(dir), &self.root.join(dir));
        lock(&self.chains).insert(dir.to_path_buf(), link.clone());
        link
    }

    /// `parent`, with the rules of `dir` in front when it has any (`shown` is how the
    /// user knows `dir`: under the root as they named it).
    fn extend(&self, parent: Link, dir: &Path, shown: &Path) -> Link {
        let in_dir = |name: &str| (dir.join(name), shown.join(name));
        let rules = DirRules {
            ignore: self.read_rules(dir, in_dir(".ignore")),
            git_ignore: self.read_rules(dir, in_dir(".gitignore")),
            git_exclude: self.git_common_dir(dir, shown).and_then(|git_dir| {
                let exclude = git_dir.join("info").join("exclude");
                self.read_rules(dir, (exclude.clone(), exclude))
            }),
        };
        if rules.ignore.is_none() && rules.git_ignore.is_none() && rules.git_exclude.is_none() {
            return parent;
        }
        Some(Arc::new(Chain { rules, parent }))
    }

    /// The patterns of the ignore file `file` (anchored at `dir`), `None` when it does
    /// not exist, has no pattern, or cannot be read (reported).
    fn read_rules(&self, dir: &Path, (file, shown): (PathBuf, PathBuf)) -> Option<Gitignore> {
        let text = self.read_small(&file, &shown, Role::IgnoreFile)?;
        let mut builder = GitignoreBuilder::new(dir);
        for (i, line) in text.lines().enumerate() {
            let line = if i == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            // A pattern git cannot use is skipped, as git skips it.
            let _ = builder.add_line(Some(file.clone()), line);
        }
        match builder.build() {
            Ok(rules) => (!rules.is_empty()).then_some(rules),
            // The patterns together are too large to compile (the glob set's regular
            // expression size limit): the walker crate dropped them unseen.
            Err(error) => {
                lock(&self.errors).push(WalkError {
                    path: display_path(&shown),
                    message: format!(
                        "ignore file patterns could not be compiled ({error}): its patterns are not applied"
                    ),
                });
                None
            }
        }
    }

    /// Where git keeps `info/exclude` for a work tree at `dir`: `.git` itself, or, when
    /// `.git` is a file (a linked work tree or submodule), the directory it names, or
    /// that directory's `commondir`.
    fn git_common_dir(&self, dir: &Path, shown: &Path) -> Option<PathBuf> {
        let dot_git = dir.join(".git");
        let meta = std::fs::metadata(&dot_git).ok()?;
        if meta.is_dir() {
            return Some(dot_git);
        }
        let text = self.read_small(&dot_git, &shown.join(".git"), Role::GitLink)?;
        let git_dir = dir.join(text.lines().next()?.strip_prefix("gitdir: ")?.trim_end());
        let common = git_dir.join("commondir");
        if !common.exists() {
            return Some(git_dir);
        }
        let text = self.read_small(&common, &common, Role::GitLink)?;
        Some(git_dir.join(text.lines().next()?.trim_end()))
    }

    /// A small text file, `None` when it does not exist; one that is not a regular file,
    /// is too large or cannot be read is reported. Bytes that are not UTF-8 (a Latin-1
    /// comment) are replaced: git reads these files as bytes and would not fail.
    fn read_small(&self, file: &Path, shown: &Path, role: Role) -> Option<String> {
        // A stat first: most directories have no ignore file at all.
        if std::fs::symlink_metadata(file).is_err() {
            return None;
        }
        let problem = match read_bytes(file, IGNORE_FILE_LIMIT) {
            Ok(bytes) => return Some(String::from_utf8_lossy(&bytes).into_owned()),
            // A link to nothing: no file, as for git.
            Err(ReadError::Io(message)) if message == "no such file or directory" => return None,
            Err(ReadError::Io(message)) => format!("could not be read ({message})"),
            Err(ReadError::NotRegular(kind)) => format!("is not a regular file ({kind}); not read"),
            Err(ReadError::TooLarge { .. }) => {
                format!("is larger than the limit of {IGNORE_FILE_LIMIT} bytes; not read")
            }
            Err(other) => format!("could not be read ({})", other.message()),
        };
        let message = match role {
            Role::IgnoreFile => format!("ignore file {problem}: its patterns are not applied"),
            Role::GitLink => format!(
                "{} {problem}: the repository's info/exclude patterns are not applied",
                shown.file_name().unwrap_or_default().to_string_lossy()
            ),
        };
        lock(&self.errors).push(WalkError {
            path: display_path(shown),
            message,
        });
        None
    }
}

/// What a file read by [`IgnoreRules`] is for, to say what is lost when it cannot be read.
#[derive(Clone, Copy)]
enum Role {
    IgnoreFile,
    /// `.git` as a file, or `commondir`: where the repository's `info/exclude` is.
    GitLink,
}

/// The maps only grow, so a panic elsewhere cannot leave them inconsistent.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::super::{WalkOptions, collect};
    use std::path::Path;

    /// xorshift64: the same trees on every machine.
    struct Random(u64);

    impl Random {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    const DIRS: &[&str] = &["", "a", "b", ".h", "a/b", "a/sub", "b/a", ".h/a"];
    const FILES: &[&str] = &["c.yaml", "d.yaml", ".e.yaml", "a.yaml", "b.json"];
    const PATTERNS: &[&str] = &[
        "*.yaml",
        "!c.yaml",
        "a/",
        "/a",
        "**/b",
        "!.h",
        "!.h/",
        ".e.yaml",
        "!*.yaml",
        "b/*.yaml",
        "a/**/d.yaml",
        "sub",
        "!sub/",
        "/*.yaml",
        "# c.yaml",
        "",
        "d.*",
        "!/a/",
        "*",
        "!*/",
        "a/b/",
        "!d.yaml",
        "[cd].yaml",
        "\\!c.yaml",
        "a.yaml/",
    ];

    fn write_rules(random: &mut Random, file: &Path) {
        let lines: Vec<&str> = (0..random.below(4))
            .map(|_| random.pick(PATTERNS))
            .collect();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, lines.join("\n")).unwrap();
    }

    /// The files the walker crate finds when it reads the ignore files itself, with the
    /// options crdlint used before it read them (hidden names left out).
    fn walked_by_the_crate(root: &Path) -> Vec<String> {
        let mut found: Vec<String> = ignore::WalkBuilder::new(root)
            .hidden(true)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .ignore(true)
            .parents(true)
            .require_git(false)
            .build()
            .map(|entry| entry.unwrap())
            .filter(|entry| entry.depth() > 0 && entry.file_type().unwrap().is_file())
            .map(|entry| entry.path().display().to_string())
            .filter(|path| path.ends_with(".yaml") || path.ends_with(".json"))
            .collect();
        found.sort();
        found
    }

    #[test]
    fn rules_are_applied_as_the_walker_crate_applies_them() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let mut differences = Vec::new();
        for tree in 0..300 {
            let dir = tempfile::tempdir().unwrap();
            let outer = dir.path().join("outer");
            let root = outer.join("root");
            for dir in DIRS {
                for file in FILES {
                    if random.below(3) == 0 {
                        let path = root.join(dir).join(file);
                        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                        std::fs::write(path, "a: 1").unwrap();
                    }
                }
                for name in [".gitignore", ".ignore"] {
                    if random.below(3) == 0 {
                        write_rules(&mut random, &root.join(dir).join(name));
                    }
                }
            }
            // Rules above the walked root, and a repository's own exclude file.
            write_rules(&mut random, &outer.join(".gitignore"));
            write_rules(&mut random, &outer.join(".git/info/exclude"));
            std::fs::create_dir_all(&root).unwrap();

            let expected = walked_by_the_crate(&root);
            let (inputs, errors) = collect(std::slice::from_ref(&root), &WalkOptions::default());
            assert!(errors.is_empty(), "{errors:?}");
            let mut got: Vec<String> = inputs.iter().map(|i| i.display()).collect();
            got.sort();
            if got != expected {
                differences.push(format!("tree {tree}: crate {expected:?}, crdlint {got:?}"));
            }
        }
        assert!(differences.is_empty(), "{}", differences.join("\n"));
    }
}
