//! Hostile inputs: each gets a clear diagnostic and exit status, and the run ends.
//! The timeouts are hang guards (generous, never a performance assertion).

use std::time::Duration;

use assert_cmd::Command;

const HANG_GUARD: Duration = Duration::from_secs(60);

fn check_short(args: &[&str]) -> (String, i32) {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .arg("check")
        .arg("-o")
        .arg("short")
        .args(args)
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap_or(-1),
    )
}

fn write(dir: &std::path::Path, name: &str, content: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn billion_laughs_is_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let mut yaml = String::from(
        "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for i in 1..10 {
        let p = i - 1;
        yaml.push_str(&format!(
            "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
        ));
    }
    let path = write(dir.path(), "bomb.yaml", yaml);
    let (out, status) = check_short(&[&path]);
    assert_eq!(status, 1);
    assert!(out.contains("error[yaml-limit]"), "{out}");
}

#[test]
fn deep_nesting_is_refused_without_a_stack_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("a: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let path = write(dir.path(), "deep.yaml", text);
    let (out, status) = check_short(&[&path]);
    assert_eq!(status, 1);
    assert!(out.contains("error[yaml-limit]"), "{out}");
}

#[test]
fn a_huge_file_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.yaml");
    // A sparse 1 GiB file: no disk used, and crdlint must not read it.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(1 << 30).unwrap();
    let (out, status) = check_short(&[path.to_str().unwrap()]);
    assert_eq!(status, 1);
    assert_eq!(
        out.lines().next().unwrap(),
        format!(
            "{}: error[file-too-large]: file is 1073741824 bytes, larger than the limit of 33554432 bytes (--max-file-size)",
            path.display()
        )
    );
}

#[test]
fn binary_and_non_utf8_files_are_refused_with_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let bin = write(dir.path(), "a.yaml", b"\x89PNG\r\n\x1a\n\x00\x00");
    let latin = write(dir.path(), "b.yaml", b"k: caf\xe9\n");
    let (out, status) = check_short(&[&bin, &latin]);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{bin}: error[binary-file]: binary file (NUL byte at offset 8); not a YAML or JSON manifest\n\
             {latin}: error[binary-file]: file is not valid UTF-8 (invalid byte at offset 6); Kubernetes manifests must be UTF-8\n\
             2 files, 0 documents (0 CRDs, 0 custom resources): 2 errors, 0 warnings\n"
        )
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.yaml");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let (out, status) = check_short(&[fifo.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(
        out.starts_with(&format!(
            "{}: error[io-error]: not a regular file (a FIFO); not read",
            fifo.display()
        )),
        "{out}"
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_is_reported_and_the_walk_ends() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("d");
    std::fs::create_dir(&sub).unwrap();
    write(
        &sub,
        "x.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    );
    std::os::unix::fs::symlink(&sub, sub.join("loop")).unwrap();
    let (out, status) = check_short(&[dir.path().to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(out.contains("error[io-error]: symbolic link loop"), "{out}");
    assert!(
        out.ends_with("1 file, 1 document (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"),
        "{out}"
    );
}

#[cfg(unix)]
#[test]
fn unreadable_files_are_io_errors() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "secret.yaml", "a: 1\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&path).is_ok() {
        eprintln!("skipped: running as a user who can read mode-000 files (root)");
        return;
    }
    let (out, status) = check_short(&[&path]);
    assert_eq!(status, 2);
    assert!(
        out.starts_with(&format!("{path}: error[io-error]: permission denied")),
        "{out}"
    );
}

#[cfg(unix)]
#[test]
fn crdlint_never_writes_to_the_checked_tree() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir(&root).unwrap();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples");
    for entry in std::fs::read_dir(examples).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), root.join(entry.file_name())).unwrap();
    }
    let snapshot = |root: &std::path::Path| {
        let mut files: Vec<(String, Vec<u8>, std::time::SystemTime)> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let meta = e.metadata().unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                    meta.modified().unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    };
    for entry in std::fs::read_dir(&root).unwrap() {
        std::fs::set_permissions(
            entry.unwrap().path(),
            std::fs::Permissions::from_mode(0o444),
        )
        .unwrap();
    }
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = snapshot(&root);
    let (out, _) = check_short(&[root.to_str().unwrap()]);
    assert!(out.contains("3 files, 3 documents"), "{out}");
    assert_eq!(before, snapshot(&root));
    let listing: Vec<_> = std::fs::read_dir(&root).unwrap().collect();
    assert_eq!(listing.len(), 3, "no file was created");
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
}
