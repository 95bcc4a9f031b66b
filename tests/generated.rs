//! Files generated from the clap definition and committed for packagers and users:
//! completions/ (bash, zsh, fish, powershell, elvish) and man/ (one page per command).
//! These tests fail when a flag changed and the files were not regenerated; regenerate
//! with `CRDLINT_BLESS=1 cargo test --test generated`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::{Generator, Shell};

const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::PowerShell,
    Shell::Elvish,
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("CRDLINT_BLESS").is_some_and(|v| v == "1")
}

/// Compares (or, when blessing, writes) `expected` files in `dir`; files in `dir` that
/// are not expected are stale too.
fn check_dir(dir: &Path, expected: BTreeMap<String, Vec<u8>>) {
    if bless() {
        std::fs::create_dir_all(dir).unwrap();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !expected.contains_key(&name) && name != "README.md" {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        for (name, content) in &expected {
            std::fs::write(dir.join(name), content).unwrap();
        }
        return;
    }
    let mut stale = Vec::new();
    for (name, content) in &expected {
        match std::fs::read(dir.join(name)) {
            Ok(committed) if &committed == content => {}
            Ok(_) => stale.push(format!("{name}: differs from the generated one")),
            Err(_) => stale.push(format!("{name}: missing")),
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !expected.contains_key(&name) && name != "README.md" {
                stale.push(format!("{name}: no longer generated"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{} is stale:\n  {}\nregenerate with: CRDLINT_BLESS=1 cargo test --test generated",
        dir.display(),
        stale.join("\n  ")
    );
}

#[test]
fn completions_are_fresh() {
    let expected = SHELLS
        .iter()
        .map(|shell| {
            (
                shell.file_name("crdlint"),
                crdlint::cli::completions::script(*shell),
            )
        })
        .collect();
    check_dir(&root().join("completions"), expected);
}

#[test]
fn man_pages_are_fresh() {
    let generated = tempfile::tempdir().unwrap();
    clap_mangen::generate_to(crdlint::cli::Cli::command(), generated.path()).unwrap();
    let expected = std::fs::read_dir(generated.path())
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    check_dir(&root().join("man"), expected);
}

#[test]
fn the_completions_command_prints_the_committed_scripts() {
    for shell in SHELLS {
        let out = assert_cmd::Command::cargo_bin("crdlint")
            .unwrap()
            .args(["completions", &shell.to_string()])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(
            out.stdout,
            crdlint::cli::completions::script(shell),
            "{shell}"
        );
        assert!(!out.stdout.is_empty());
    }
}
