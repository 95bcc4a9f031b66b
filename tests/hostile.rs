//! Hostile inputs: each gets a clear diagnostic and exit status, and the run ends.
//! The timeouts are hang guards (generous, never a performance assertion).

use std::time::Duration;

use assert_cmd::Command;

const HANG_GUARD: Duration = Duration::from_secs(60);

/// The hang guard of a run that prints hundreds of MiB on purpose: `dry-run` printing
/// the 256 MiB of defaults a run may apply takes 6.4 s in a release build and 59 s in
/// the debug build CI tests (session 52's machine), at the plain guard's edge.
const PRINTING_HANG_GUARD: Duration = Duration::from_secs(300);

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

/// The node limit alone let a 1 MB anchored string aliased 20,000 times (a 1 MB file)
/// claim 20 GB and abort; copies of keys and strings are bounded too, whether the alias
/// stands for a value or for a key.
#[test]
fn an_alias_bomb_of_long_strings_is_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let big = "x".repeat(1_000_000);
    let head = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\ndata:\n  big: &a \"{big}\"\n"
    );
    let values = format!("{head}  list: [{}]\n", vec!["*a"; 20_000].join(","));
    let keys = format!("{head}  list: [{}]\n", vec!["{*a : 1}"; 20_000].join(","));
    for (name, yaml, column) in [("values.yaml", values, 211), ("keys.yaml", keys, 614)] {
        let path = write(dir.path(), name, yaml);
        let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
        assert_eq!(status, 1, "{name}");
        assert_eq!(
            out,
            format!(
                "{path}:6:{column}: error[yaml-limit]: document contains excessive aliasing: expanding anchors and aliases would copy more than 64 MiB of keys and strings\n1 file, 0 documents (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"
            )
        );
    }
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

/// In a directory, a FIFO, a socket or a link to a device named like a manifest is
/// reported the same way (never opened), not skipped unseen; other names are not looked at.
#[cfg(target_os = "linux")]
#[test]
fn special_files_met_in_a_directory_are_reported_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["pipe.yaml", "pipe.txt"] {
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join(name))
            .status()
            .unwrap();
        assert!(status.success());
    }
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.yml")).unwrap();
    write(
        dir.path(),
        "ok.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    );
    let (out, status) = check_short(&[dir.path().to_str().unwrap()]);
    assert_eq!(status, 2);
    let d = dir.path().display();
    assert_eq!(
        out,
        format!(
            "{d}/pipe.yaml: error[io-error]: not a regular file (a FIFO); not read\n\
             {d}/sock.json: error[io-error]: not a regular file (a socket); not read\n\
             {d}/zero.yml: error[io-error]: not a regular file (a device); not read\n\
             4 files, 1 document (0 CRDs, 0 custom resources): 3 errors, 0 warnings\n"
        )
    );
}

/// Ignore files are read by crdlint, like manifests: a FIFO named `.gitignore` blocked
/// the walk forever and an `.ignore` linked to `/dev/zero` ate memory without end (the
/// walker crate opened them unchecked). Each is reported, its patterns left out, and
/// the rest of the tree is checked.
#[cfg(target_os = "linux")]
#[test]
fn ignore_files_that_cannot_be_read_are_reported_and_the_walk_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for sub in ["fifo", "zero", "big", "huge", "worktree"] {
        std::fs::create_dir(root.join(sub)).unwrap();
        if sub == "fifo" {
            std::fs::create_dir(root.join("fifo/a")).unwrap();
            std::fs::create_dir(root.join("fifo/b")).unwrap();
        }
        write(
            &root.join(sub),
            "ok.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
        );
    }
    for fifo in ["fifo/.gitignore", "worktree/.git"] {
        let status = std::process::Command::new("mkfifo")
            .arg(root.join(fifo))
            .status()
            .unwrap();
        assert!(status.success());
    }
    std::os::unix::fs::symlink("/dev/zero", root.join("zero/.ignore")).unwrap();
    write(&root.join("big"), ".gitignore", "*.yaml\n".repeat(200_000));
    // Under the size limit, but one pattern too large for the glob set to compile.
    write(&root.join("huge"), ".gitignore", "[a-z]".repeat(200_000));
    let (out, status) = check_short(&[root.to_str().unwrap()]);
    assert_eq!(status, 2, "{out}");
    // Two roots below an unreadable ignore file: its error is said once.
    let (twice, _) = check_short(&[
        root.join("fifo/a").to_str().unwrap(),
        root.join("fifo/b").to_str().unwrap(),
    ]);
    assert_eq!(
        twice,
        format!(
            "{}/fifo/.gitignore: error[io-error]: ignore file is not a regular file (a FIFO); not read: its patterns are not applied\n\
             0 files, 0 documents (0 CRDs, 0 custom resources): 1 error, 0 warnings\n",
            root.canonicalize().unwrap().display()
        )
    );
    let d = root.display();
    assert_eq!(
        out,
        format!(
            "{d}/big/.gitignore: error[io-error]: ignore file is larger than the limit of 1048576 bytes; not read: its patterns are not applied\n\
             {d}/fifo/.gitignore: error[io-error]: ignore file is not a regular file (a FIFO); not read: its patterns are not applied\n\
             {d}/huge/.gitignore: error[io-error]: ignore file patterns could not be compiled (error building NFA): its patterns are not applied\n\
             {d}/worktree/.git: error[io-error]: .git is not a regular file (a FIFO); not read: the repository's info/exclude patterns are not applied\n\
             {d}/zero/.ignore: error[io-error]: ignore file is not a regular file (a device); not read: its patterns are not applied\n\
             5 files, 5 documents (0 CRDs, 0 custom resources): 5 errors, 0 warnings\n"
        )
    );
}

/// An absurd `RAYON_NUM_THREADS` is capped (4 per core, at least 64) instead of starting
/// 100,000 threads, which never finished; a value that is no number means one per core.
#[test]
fn an_absurd_worker_count_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "ok.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    );
    for threads in ["100000", "many"] {
        let output = Command::cargo_bin("crdlint")
            .unwrap()
            .args(["check", "-o", "short", &file])
            .env("RAYON_NUM_THREADS", threads)
            .timeout(HANG_GUARD)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            "1 file, 1 document (0 CRDs, 0 custom resources): 0 errors, 0 warnings\n"
        );
        assert_eq!(output.status.code(), Some(0));
    }
}

/// A device named on the command line (an endless /dev/zero, an empty /dev/null) is
/// refused before it is opened for reading (findings are sorted by path).
#[cfg(target_os = "linux")]
#[test]
fn device_paths_are_refused_without_reading() {
    let (out, status) = check_short(&["/dev/zero", "/dev/null"]);
    assert_eq!(status, 2);
    assert_eq!(
        out,
        "/dev/null: error[io-error]: not a regular file (a device); not read\n\
         /dev/zero: error[io-error]: not a regular file (a device); not read\n\
         2 files, 0 documents (0 CRDs, 0 custom resources): 2 errors, 0 warnings\n"
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

/// A repository whose every level links twice to the next has 2^40 paths to its last
/// level and no loop; a walk that followed every path would never end. Each directory
/// is walked once, and a CRD linked into a chart (a common layout) is read once.
#[cfg(unix)]
#[test]
fn a_symlink_maze_is_walked_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let levels = 40;
    for level in 0..=levels {
        std::fs::create_dir(root.join(format!("l{level}"))).unwrap();
    }
    for level in 0..levels {
        for link in ["a", "b"] {
            std::os::unix::fs::symlink(
                format!("../l{}", level + 1),
                root.join(format!("l{level}/{link}")),
            )
            .unwrap();
        }
    }
    write(
        &root.join(format!("l{levels}")),
        "crd.yaml",
        crd_with_properties("              p: {type: strin}\n"),
    );
    std::fs::create_dir_all(root.join("l0/chart")).unwrap();
    std::os::unix::fs::symlink(format!("../../l{levels}"), root.join("l0/chart/crds")).unwrap();
    let l0 = root.join("l0");
    let (out, status) = check_short(&[l0.to_str().unwrap()]);
    assert_eq!(status, 1, "{out}");
    let deepest = format!("{}/{}crd.yaml", l0.display(), "a/".repeat(levels));
    assert_eq!(
        out,
        format!(
            "{deepest}:20:25: error[schema-invalid-type]: spec.validation.openAPIV3Schema.properties[spec].properties[p].type: Unsupported value: \"strin\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"\n\
             1 file, 1 document (1 CRD, 0 custom resources): 1 error, 0 warnings\n"
        )
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

// ---------------------------------------------------------------------------------------
// Sizes, depths, budgets: each case finishes in bounded time and memory.

/// Runs `crdlint check -o <format> ARGS` with its address space limited to `max_mib`
/// (Linux `ulimit -v`), so a run that would balloon fails instead of passing slowly.
fn check_bounded(format: &str, args: &[&str], max_mib: u64) -> (String, i32) {
    let mut all = vec!["check", "-o", format];
    all.extend_from_slice(args);
    crdlint_bounded(&all, max_mib)
}

/// `crdlint ARGS` with its address space limited to `max_mib` MiB.
fn crdlint_bounded(args: &[&str], max_mib: u64) -> (String, i32) {
    let bin = assert_cmd::cargo::cargo_bin("crdlint");
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {} && exec \"$0\" \"$@\"",
            max_mib * 1024
        ))
        .arg(bin)
        .args(args)
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap_or(-1),
    )
}

/// A `Thing` resource whose `spec.l` is the JSON list of `items`, on one line.
fn write_list_resource<S: AsRef<str>>(dir: &std::path::Path, items: &[S]) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    write(
        dir,
        "cr.json",
        format!("{LIST_RESOURCE_HEAD}{}]}}}}\n", items.join(",")),
    )
}

const LIST_RESOURCE_HEAD: &str = "{\"apiVersion\": \"example.com/v1\", \"kind\": \"Thing\", \"metadata\": {\"name\": \"t\", \"namespace\": \"default\"}, \"spec\": {\"l\": [";

/// The 1-based column of `items[i]` in a resource from [`write_list_resource`].
fn list_item_column<S: AsRef<str>>(items: &[S], i: usize) -> usize {
    LIST_RESOURCE_HEAD.len()
        + 1
        + items[..i]
            .iter()
            .map(|s| s.as_ref().len() + 1)
            .sum::<usize>()
}

/// Address space granted to runs that must stay small (threads reserve stacks and
/// allocator arenas, so this is far above the memory actually used).
const SMALL_MIB: u64 = 2048;

fn crd_with_properties(properties: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {{plural: things, kind: Thing}}
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
            properties:
{properties}"
    )
}

#[test]
fn a_crd_with_10k_properties_is_checked_in_bounded_time_and_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut properties = String::new();
    for i in 0..10_000 {
        // Every 100th property has a pattern and a default checked against it.
        let extra = if i % 100 == 0 {
            ", pattern: '^[a-z]+$', default: abc"
        } else {
            ""
        };
        properties.push_str(&format!("              p{i}: {{type: string{extra}}}\n"));
    }
    properties.push_str("              last: {type: strin}\n");
    let path = write(dir.path(), "wide.yaml", crd_with_properties(&properties));
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 1, "{out}");
    assert_eq!(
        out,
        format!(
            "{path}:10020:28: error[schema-invalid-type]: spec.validation.openAPIV3Schema.properties[spec].properties[last].type: Unsupported value: \"strin\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"\n\
             1 file, 1 document (1 CRD, 0 custom resources): 1 error, 0 warnings\n"
        )
    );
}

/// saphyr holds back every token of a flow collection that could still be a key, and a
/// JSON document's root `{` is one: 6 million list items (12 MB of JSON) took 3 GB, a
/// 30 MB file 5.8 GB, before the first event. JSON is now read by a walk that emits
/// saphyr's events as it goes (`source/yaml/json_events.rs`): 0.8 GB at the peak here.
#[test]
fn a_json_resource_of_millions_of_items_is_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties("              x: {type: array, items: {type: integer}}\n"),
    );
    let items = vec!["0"; 6_000_000].join(",");
    // A second value after it: the stream is read value by value, never whole.
    let resource = format!(
        "{{\"apiVersion\": \"example.com/v1\", \"kind\": \"Thing\", \"metadata\": {{\"name\": \"a\"}}, \"spec\": {{\"x\": [{items}]}}}}\n\
         {{\"apiVersion\": \"example.com/v1\", \"kind\": \"Thing\", \"metadata\": {{\"name\": \"b\"}}, \"spec\": {{\"x\": [\"c\"]}}}}\n"
    );
    let path = write(dir.path(), "many.json", resource);
    // The tree itself (6 million nodes, and its list's last doubling) needs about
    // 2.5 GB of address space; the token queue alone needed more than 3 GB.
    let (out, status) = check_bounded("short", &[&crd, &path], 3072);
    assert_eq!(status, 1, "{out}");
    assert_eq!(
        out,
        format!(
            "{path}:1:1: error[request-too-large]: Request entity too large: limit is 3145728\n\
             {path}:2:93: error[schema-violation]: spec.x[0]: Invalid value: \"string\": spec.x[0] in body must be of type integer: \"string\"\n\
             2 files, 3 documents (1 CRD, 2 custom resources): 2 errors, 0 warnings\n"
        )
    );
}

/// Each duplicate in `x-kubernetes-list-map-keys` is an error quoting the whole list,
/// as the server words it: 20,000 keys (3,000 distinct, a 260 KB CRD) made 17,000
/// errors of 140 KB, and crdlint took 45 s and 24 GB before the findings budget
/// counted the quoted values (now 0.6 s, stopped at the object's 64 MiB).
#[test]
fn duplicate_list_map_keys_quoting_a_long_list_stop_at_the_findings_limit() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<String> = (0..20_000).map(|i| format!("k{}", i % 3_000)).collect();
    let item_properties: String = (0..3_000)
        .map(|i| format!("k{i}: {{type: string}}, "))
        .collect();
    let properties = format!(
        "              l: {{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [{}], items: {{type: object, required: [{}], properties: {{{item_properties}}}}}}}\n",
        keys.join(", "),
        keys[..3_000].join(", ")
    );
    let path = write(dir.path(), "keys.yaml", crd_with_properties(&properties));
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 1, "{}", &out[out.len().saturating_sub(300)..]);
    let duplicate = format!(
        "{path}:20:89: error[schema-extension]: spec.validation.openAPIV3Schema.properties[spec].properties[l].x-kubernetes-list-map-keys: Invalid value: [\"k0\",\"k1\","
    );
    let lines: Vec<&str> = out.lines().collect();
    let (summary, findings) = lines.split_last().unwrap();
    let (limit, errors) = findings.split_first().unwrap();
    assert_eq!(
        *limit,
        format!(
            "{path}:1:1: error[findings-limit]: crdlint stopped checking this object: its findings passed 64 MiB (the server would list more)"
        )
    );
    assert!(
        errors.iter().all(|e| e.starts_with(&duplicate)
            && e.ends_with("\"k1999\"]: must not contain duplicate entries")),
        "{}",
        &errors[0][..300]
    );
    // 64 MiB of errors of about 150 KB each.
    assert_eq!(errors.len(), 439);
    assert_eq!(
        *summary,
        "1 file, 1 document (1 CRD, 0 custom resources): 440 errors, 0 warnings"
    );
}

#[test]
fn a_catastrophic_pattern_is_matched_in_linear_time() {
    // `^(a+)+$` against "aaaa…!" takes exponential time with a backtracking engine;
    // RE2 semantics (the regex crate) make it linear. The default is checked against the
    // pattern when the CRD is validated.
    let dir = tempfile::tempdir().unwrap();
    let value = format!("{}!", "a".repeat(50_000));
    let properties =
        format!("              x: {{type: string, pattern: '^(a+)+$', default: '{value}'}}\n");
    let path = write(dir.path(), "redos.yaml", crd_with_properties(&properties));
    let started = std::time::Instant::now();
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 1, "{out}");
    let first = out.lines().next().unwrap();
    let field = "spec.validation.openAPIV3Schema.properties[spec].properties[x].default";
    // The server validates the default with an empty field name, hence the two spaces.
    let expected = format!(
        "{path}:20:62: error[schema-invalid-default]: {field}: Invalid value: \"{value}\":  in body should match '^(a+)+$'"
    );
    assert!(first == expected, "{}…", &first[..300.min(first.len())]);
    assert!(started.elapsed() < HANG_GUARD);
}

/// crd_validate fuzzing: a 41 KB `pattern` with hundreds of groups made the regex
/// crate's PikeVM cache states × groups slots (2.5 GB) when the default was matched.
/// Groups no longer capture; the CRD is accepted, as by the 1.35 libraries.
#[test]
fn a_pattern_with_many_groups_is_matched_in_bounded_memory() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/fuzz/regex-many-groups.yaml"
    );
    let (out, status) = check_bounded("short", &[path], SMALL_MIB);
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out,
        "1 file, 1 document (1 CRD, 0 custom resources): 0 errors, 0 warnings\n"
    );
}

/// A pattern Go accepts whose compiled form exceeds the matching budget: a warning, not
/// an error and not gigabytes; a larger budget matches it.
#[test]
fn a_pattern_too_large_to_match_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let properties = "              x: {type: string, pattern: '^\\p{L}{1,1000} \\p{L}{1,1000} \\p{L}{1,1000}$'}\n";
    let path = write(dir.path(), "big.yaml", crd_with_properties(properties));
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out,
        format!(
            "{path}:20:42: warning[schema-pattern-not-evaluated]: the regular expression is valid, but its compiled form exceeds crdlint's 64 MiB matching budget (--max-regex-size), so values are not checked against this pattern\n\
             1 file, 1 document (1 CRD, 0 custom resources): 0 errors, 1 warning\n"
        )
    );
    let (out, status) = check_bounded("short", &[&path, "--max-regex-size", "512"], SMALL_MIB);
    assert_eq!(status, 0, "{out}");
    assert!(out.ends_with(": 0 errors, 0 warnings\n"), "{out}");
}

/// The same in CEL: `matches()` with such a pattern is a rule crdlint cannot run, said
/// at the value it applies to.
#[test]
fn a_cel_regex_too_large_to_match_is_not_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let properties = "              x:\n                type: string\n                x-kubernetes-validations:\n                - rule: \"self.matches(r'^\\\\p{L}{1,1000} \\\\p{L}{1,1000} \\\\p{L}{1,1000}$')\"\n";
    let crd = write(dir.path(), "crd.yaml", crd_with_properties(properties));
    let cr = write(
        dir.path(),
        "cr.yaml",
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {x: abc}\n",
    );
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out,
        format!(
            "{cr}:4:11: warning[cel-not-evaluated]: spec.x: rule not evaluated by crdlint (crdlint cannot evaluate a regular expression this large (over 64 MiB compiled; see --max-regex-size) yet): self.matches(r'^\\p{{L}}{{1,1000}} \\p{{L}}{{1,1000}} \\p{{L}}{{1,1000}}$')\n\
             2 files, 2 documents (1 CRD, 1 custom resource): 0 errors, 1 warning\n"
        )
    );
}

#[test]
fn deep_nesting_inside_json_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 100_000;
    let text = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"data\": {}1{}}}",
        "{\"a\": ".repeat(depth),
        "}".repeat(depth)
    );
    let path = write(dir.path(), "deep.json", text);
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{path}:1:1575: error[yaml-limit]: nesting is deeper than the limit of 255 levels of flow collections\n\
             1 file, 0 documents (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"
        )
    );
}

#[test]
fn a_max_depth_beyond_what_is_safe_is_a_usage_error() {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .args(["check", "--max-depth", "200000", "."])
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("invalid value '200000' for '--max-depth <N>': 200000 is not in 1..=1000"),
        "{stderr}"
    );
}

#[test]
fn deep_block_nesting_within_the_limit_does_not_overflow() {
    // 1000 nested block sequences (no flow-collection cap applies) at the maximum depth.
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "seq.yaml", format!("{}x\n", "- ".repeat(999)));
    let (out, status) = check_bounded("short", &["--max-depth", "1000", &path], SMALL_MIB);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{path}:1:1: error[not-an-object]: document is an array, not a Kubernetes object\n\
             1 file, 1 document (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"
        )
    );
}

#[test]
fn a_ten_megabyte_line_is_reported_without_printing_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ndata: {{a: \"{}\", a: dup}}\n",
        "x".repeat(10_000_000)
    );
    let path = write(dir.path(), "long.yaml", text);
    let expected = format!("{path}:4:10000015: key \"a\" already set in map (first set on line 4)");
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 1);
    assert_eq!(
        out.lines().next().unwrap(),
        format!(
            "{path}:4:10000015: error[duplicate-key]: key \"a\" already set in map (first set on line 4)"
        )
    );
    // The human report does not repeat the line in a snippet (miette cannot even pad a
    // label that far): it prints the position instead.
    let (human, status) = check_bounded("human", &["--color", "never", &path], SMALL_MIB);
    assert_eq!(status, 1);
    assert!(
        human.contains(&expected),
        "{}",
        &human[..human.len().min(2000)]
    );
    assert!(human.len() < 2000, "{} bytes of report", human.len());
}

#[test]
fn findings_on_a_minified_eight_megabyte_line_cost_no_line_scans() {
    // 20,000 items without apiVersion and kind on one 8 MB line: 20,000 findings whose
    // columns must not each cost a scan from the start of the line (that was 10^11 steps).
    let dir = tempfile::tempdir().unwrap();
    let n = 20_000;
    let item = format!("{{\"a\":\"{}\"}}", "x".repeat(400));
    let text = format!(
        "{{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":[{}]}}",
        vec![item.as_str(); n].join(",")
    );
    let path = write(dir.path(), "list.json", text);
    let last_column = 43 + (item.len() + 1) * (n - 1);
    for format in ["short", "json", "human"] {
        let (out, status) = check_bounded(format, &["--color", "never", &path], SMALL_MIB);
        assert_eq!(status, 1, "{format}");
        let tail = &out[out.len().saturating_sub(1500)..];
        match format {
            "short" => assert!(
                out.ends_with(&format!(
                    "{path}:1:{last_column}: error[missing-type-meta]: apiVersion not set, kind not set\n\
                     1 file, 20000 documents (0 CRDs, 0 custom resources): 20000 errors, 0 warnings\n"
                )),
                "{tail}"
            ),
            "json" => assert!(
                out.contains(&format!(
                    "\"start\": {{\n          \"line\": 1,\n          \"column\": {last_column},"
                )),
                "{tail}"
            ),
            _ => {
                // No snippet repeats the line: each finding is a few lines.
                assert!(
                    out.contains(&format!("{path}:1:{last_column}: apiVersion not set")),
                    "{tail}"
                );
                assert!(out.len() < n * 400, "{} bytes of report", out.len());
            }
        }
    }
}

#[test]
fn a_file_of_100k_tiny_documents_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let text = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n".repeat(100_000);
    let path = write(dir.path(), "many.yaml", text);
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 0);
    assert_eq!(
        out,
        "1 file, 100000 documents (0 CRDs, 0 custom resources): 0 errors, 0 warnings\n"
    );
}

/// A stream of JSON values (`jq -c` output) is one document per value; counting the
/// lines before each value from the file's start took minutes for 200,000 of them.
#[test]
fn a_stream_of_100k_json_values_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"x\"}}\n"
            .repeat(100_000);
    let path = write(dir.path(), "many.json", text);
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 0);
    assert_eq!(
        out,
        "1 file, 100000 documents (0 CRDs, 0 custom resources): 0 errors, 0 warnings\n"
    );
}

/// JSON-report spans of every diagnostic: (line, column, start offset, end offset).
fn json_spans(path: &str) -> Vec<(u64, u64, u64, u64)> {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .args(["check", "-o", "json", path])
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = &d["span"];
            (
                s["start"]["line"].as_u64().unwrap(),
                s["start"]["column"].as_u64().unwrap(),
                s["start"]["offset"].as_u64().unwrap(),
                s["end"]["offset"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn crlf_line_endings_keep_lines_columns_and_offsets_right() {
    let dir = tempfile::tempdir().unwrap();
    let lf = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crd/scope_bad.yaml"),
    )
    .unwrap()
    .replace(
        "listKind: WidgetList",
        "listKind: WidgetList\n    listKind: again",
    );
    let crlf = lf.replace('\n', "\r\n");
    let lf_path = write(dir.path(), "lf.yaml", &lf);
    let crlf_path = write(dir.path(), "crlf.yaml", &crlf);
    let lf_spans = json_spans(&lf_path);
    let crlf_spans = json_spans(&crlf_path);
    // The duplicate listKind (12:5) and the bad scope (13:10).
    assert_eq!(
        lf_spans.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>(),
        [(12, 5), (13, 10)]
    );
    assert_eq!(lf_spans.len(), crlf_spans.len());
    for (a, b) in lf_spans.iter().zip(&crlf_spans) {
        // Same line and column; the offset counts one more byte per earlier line.
        assert_eq!((a.0, a.1), (b.0, b.1));
        assert_eq!(b.2, a.2 + (a.0 - 1));
        let lf_text = &lf[a.2 as usize..a.3 as usize];
        let crlf_text = &crlf[b.2 as usize..b.3 as usize];
        assert_eq!(lf_text, crlf_text.replace("\r\n", "\n"));
    }
    let (lf_short, _) = check_short(&[&lf_path]);
    let (crlf_short, _) = check_short(&[&crlf_path]);
    assert_eq!(
        lf_short.replace(&lf_path, "F"),
        crlf_short.replace(&crlf_path, "F")
    );
}

#[test]
fn a_byte_order_mark_does_not_shift_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "bom.yaml", "\u{FEFF}{a: 1, a: 2}\n");
    let (out, status) = check_short(&[&path]);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{path}:1:1: error[missing-type-meta]: apiVersion not set, kind not set\n\
             {path}:1:8: error[duplicate-key]: key \"a\" already set in map (first set on line 1)\n\
             1 file, 1 document (0 CRDs, 0 custom resources): 2 errors, 0 warnings\n"
        )
    );
    // Offsets stay file offsets (the mark is 3 bytes).
    assert_eq!(json_spans(&path)[1], (1, 8, 10, 11));
}

// ---------------------------------------------------------------------------------------
// CEL at run time (library API: evaluation of custom resources).

mod cel_runtime {
    use crdlint::cel::{KubeVersion, compile_rules, evaluate};
    use crdlint::diag::FieldPath;
    use crdlint::schema::structural::{Structural, from_props};
    use crdlint::source::yaml::{Limits, parse};
    use crdlint::source::{Node, Span};

    use super::HANG_GUARD;

    fn structural(schema: &str) -> Structural {
        let out = parse(schema, &Limits::default());
        let (props, diags) = crdlint::model::schema::decode(
            &out.documents[0].root,
            &FieldPath::root("spec.versions[0].schema.openAPIV3Schema"),
        );
        assert!(diags.is_empty(), "{diags:?}");
        from_props(&props).expect("structural")
    }

    /// Compiles the schema's rules and evaluates them on `object`: the messages.
    fn evaluate_rules(schema: &str, object: serde_json::Value) -> Vec<String> {
        let s = structural(schema);
        let compiled = compile_rules(
            &s,
            KubeVersion::NEWEST,
            &FieldPath::root("spec.versions[0].schema.openAPIV3Schema"),
        );
        for r in &compiled {
            assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        }
        let started = std::time::Instant::now();
        let out = evaluate(
            &s,
            &compiled,
            &Node::from_json(&object, Span::default()),
            None,
        );
        assert!(started.elapsed() < HANG_GUARD);
        assert!(out.not_evaluated.is_empty(), "{:?}", out.not_evaluated);
        out.diagnostics.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn a_rule_that_would_run_for_hours_stops_at_the_per_call_cost_limit() {
        // 1000^4 iterations: about 10^12 steps, stopped after 1,000,000 cost units.
        let rule = "self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, a + b + c + d >= 0))))";
        let schema = format!(
            "type: object
properties:
  spec:
    type: object
    x-kubernetes-validations: [{{rule: \"{rule}\"}}]
    properties:
      l: {{type: array, items: {{type: integer}}}}
"
        );
        let items: Vec<i64> = (0..1000).collect();
        let messages = evaluate_rules(&schema, serde_json::json!({"spec": {"l": items}}));
        assert_eq!(
            messages,
            [format!(
                "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {rule}"
            )]
        );
    }

    #[test]
    fn a_catastrophic_regex_in_matches_is_linear() {
        let schema = "type: object
properties:
  spec:
    type: object
    properties:
      s:
        type: string
        x-kubernetes-validations: [{rule: \"self.matches('^(a+)+$')\"}]
";
        let value = format!("{}!", "a".repeat(100_000));
        let messages = evaluate_rules(schema, serde_json::json!({"spec": {"s": value}}));
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("spec.s: Invalid value: \"aaaa"),
            "{}",
            &messages[0][..200]
        );
        assert!(
            messages[0].ends_with("a!\": failed rule: self.matches('^(a+)+$')"),
            "{}",
            &messages[0][messages[0].len() - 200..]
        );
    }
}

#[test]
fn a_cel_rule_that_would_run_for_hours_is_refused_on_create_and_stopped_at_run_time() {
    // The CRD is rejected by the static cost estimate; its resource, checked anyway,
    // stops at the per-call runtime limit instead of running 10^12 iterations.
    let dir = tempfile::tempdir().unwrap();
    let rule = "self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, a + b + c + d >= 0))))";
    let crd = write(
        dir.path(),
        "crd.yaml",
        format!(
            "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: loops.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {{plural: loops, singular: loop, kind: Loop, listKind: LoopList}}
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
            - rule: \"{rule}\"
            properties:
              l: {{type: array, maxItems: 1000, items: {{type: integer}}}}
"
        ),
    );
    let items: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    let cr = write(
        dir.path(),
        "cr.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Loop\nmetadata: {{name: x, namespace: default}}\nspec:\n  l: [{}]\n",
            items.join(", ")
        ),
    );
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert_eq!(status, 1);
    let rule_field =
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
    let refused = refused_over_100x(&crd, "20:21", rule_field);
    assert_eq!(
        out,
        format!(
            "{cr}:5:3: error[cel-runtime-error]: spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {rule}\n\
             {refused}2 files, 2 documents (1 CRD, 1 custom resource): 4 errors, 0 warnings\n"
        )
    );
}

#[test]
fn rules_that_together_would_run_for_minutes_stop_at_the_per_resource_cost_budget() {
    // 20,000 list items, each with a rule costing about 846,000 (a quadratic set
    // comparison): some 17 billion cost units in all. The server stops at the 10,000,000
    // budget for the whole resource, in the twelfth item, and runs nothing after it.
    // The CRD itself is refused by the static estimate (the list has no maxItems).
    let dir = tempfile::tempdir().unwrap();
    let rule = "sets.equivalent(lists.range(self.count), lists.range(self.count))";
    let crd = write(
        dir.path(),
        "crd.yaml",
        format!(
            "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: batches.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {{plural: batches, singular: batch, kind: Batch, listKind: BatchList}}
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
            properties:
              jobs:
                type: array
                items:
                  type: object
                  x-kubernetes-validations:
                  - rule: \"{rule}\"
                  properties:
                    count: {{type: integer}}
"
        ),
    );
    let cr = write(
        dir.path(),
        "cr.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Batch\nmetadata: {{name: b, namespace: default}}\nspec:\n  jobs:\n{}",
            "  - {count: 650}\n".repeat(20_000)
        ),
    );
    let started = std::time::Instant::now();
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert!(started.elapsed() < HANG_GUARD);
    assert_eq!(status, 1);
    let rule_field = "spec.validation.openAPIV3Schema.properties[spec].properties[jobs].items.x-kubernetes-validations[0].rule";
    let refused = refused_over_100x(&crd, "25:27", rule_field);
    assert_eq!(
        out,
        format!(
            "{cr}:17:5: error[cel-runtime-error]: spec.jobs[11]: Invalid value: \"object\": validation failed due to running out of cost budget, no further validation rules will be run\n\
             {refused}2 files, 2 documents (1 CRD, 1 custom resource): 4 errors, 0 warnings\n"
        )
    );
}

/// 60,000 `---` sections that kubectl fails one by one (a tab, a bad anchor name, an
/// empty document, 20,000 of each) and 20,000 sections with content kubectl never reads.
/// Each failed section used to scan the whole file and every document (40 s for 50,000
/// tab errors in 550 KB; a 32 MiB file would have taken hours).
#[test]
fn tens_of_thousands_of_failed_sections_are_each_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!(
            "---\n\ta: {i}\n---\na: &x.{i} 1\n---\n...\n---\nb: {i}\n...\nc: 1\n"
        ));
    }
    let path = write(dir.path(), "sections.yaml", &text);
    let (out, code) = check_short(&["--no-config", &path]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 100_001, "{}", &out[..out.len().min(2000)]);
    let at = |line: &str| line.strip_prefix(path.as_str()).unwrap_or(line).to_string();
    assert_eq!(
        lines[..5].iter().map(|l| at(l)).collect::<Vec<_>>(),
        [
            ":2:1: error[yaml-syntax]: found character that cannot start any token",
            ":4:4: error[yaml-syntax]: did not find expected alphabetic or numeric character",
            ":6:1: error[yaml-syntax]: did not find expected node content",
            ":8:1: error[missing-type-meta]: apiVersion not set, kind not set",
            ":10:1: warning[ignored-content]: kubectl never reads this: it reads one document per `---` section, and this is after the first",
        ]
    );
    assert_eq!(
        lines[100_000],
        "1 file, 20000 documents (0 CRDs, 0 custom resources): 80000 errors, 20000 warnings"
    );
}

/// 40,000 documents, each with a duplicate key and a U+2028: each finding looked up its
/// document by scanning them all (2.8 s and 1.0 s at 40,000 in a release build).
#[test]
fn a_finding_in_each_of_forty_thousand_documents_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "many.yaml",
        "---\na: \"x\u{2028}y\"\na: 2\n".repeat(40_000),
    );
    let (out, code) = check_short(&["--no-config", &path]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 120_001);
    assert_eq!(
        lines[119_999].strip_prefix(path.as_str()),
        Some(
            ":120000:1: error[duplicate-key]: key \"a\" already set in map (first set on line 119999)"
        )
    );
    assert_eq!(
        lines[120_000],
        "1 file, 40000 documents (0 CRDs, 0 custom resources): 80000 errors, 40000 warnings"
    );
}

/// An object with 30,000 keys under a schema of 30,000 properties, 30,000 of them
/// required, and a map list keyed by 3,000 fields: each key looked its property up by
/// scanning the list (5 s for 20,000 in a release build; 7 s for the 32,000 keys of a
/// map list's CRD), now by hash when a list is long.
#[test]
fn thirty_thousand_keys_under_thirty_thousand_properties_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let n = 30_000;
    let mut properties: String = (0..n)
        .map(|i| format!("              p{i}: {{type: string, maxLength: 3}}\n"))
        .collect();
    let keys: Vec<String> = (0..3_000).map(|i| format!("k{i}")).collect();
    properties.push_str(&format!(
        "              ml:\n                type: array\n                x-kubernetes-list-type: map\n                x-kubernetes-list-map-keys: [{}]\n                items:\n                  type: object\n                  required: [{}]\n                  properties:\n{}",
        keys.join(", "),
        keys[1..].join(", "),
        keys.iter()
            .map(|k| format!("                    {k}: {{type: string}}\n"))
            .collect::<String>()
    ));
    let required: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    let crd = crd_with_properties(&properties).replace(
        "          spec:\n            type: object\n",
        &format!(
            "          spec:\n            type: object\n            required: [{}]\n",
            required.join(", ")
        ),
    );
    let mut cr = String::from(
        "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\n  namespace: d\nspec:\n",
    );
    for i in 1..n {
        let value = if i == n - 1 { "long" } else { "x" };
        cr.push_str(&format!("  p{i}: {value}\n"));
    }
    let path = write(dir.path(), "wide.yaml", format!("{crd}---\n{cr}"));
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 1, "{out}");
    let at = |line: &str| line.strip_prefix(path.as_str()).unwrap_or(line).to_string();
    let lines: Vec<String> = out.lines().map(at).collect();
    assert_eq!(
        lines,
        [
            ":30029:21: error[schema-extension]: spec.validation.openAPIV3Schema.properties[spec].properties[ml].items.properties[k0].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            ":33035:1: error[schema-violation]: spec.p0: Required value",
            ":63034:11: error[schema-violation]: spec.p29999: Too long: may not be more than 3 bytes",
            "1 file, 2 documents (1 CRD, 1 custom resource): 3 errors, 0 warnings",
        ],
        "{out}"
    );
}

/// `--old` with a 20,000-item map list: half the items keep their keys, half are new,
/// and a rule without `oldSelf` fails on all of them. Each item's old counterpart was
/// searched in the whole old list, and each new item's failure compared the whole list
/// with the old one again: 2.4 hours in a release build; now under a second.
#[test]
fn a_twenty_thousand_item_map_list_update_is_correlated_by_index() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing, plural: things}
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
            properties:
              ml:
                type: array
                maxItems: 100000
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [k]
                items:
                  type: object
                  required: [k]
                  x-kubernetes-validations:
                  - rule: self.v.size() < 5
                  properties:
                    k: {type: string, maxLength: 10}
                    v: {type: string, maxLength: 10}
",
    );
    let cr = |keys: Vec<String>| {
        let items: String = keys
            .iter()
            .map(|k| format!("  - {{k: {k}, v: aaaaaaa}}\n"))
            .collect();
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t, namespace: d, resourceVersion: \"5\"}}\nspec:\n  ml:\n{items}"
        )
    };
    let n = 20_000;
    let old = write(
        dir.path(),
        "old.yaml",
        cr((0..n).map(|i| format!("k{i}")).collect()),
    );
    let new_keys = (0..n / 2)
        .map(|i| format!("k{i}"))
        .chain((0..n / 2).map(|i| format!("x{i}")))
        .collect();
    let new = write(dir.path(), "new.yaml", cr(new_keys));
    let (out, code) = check_short(&["--no-config", &crd, "--old", &old, &new]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 20_001, "{}", &out[..out.len().min(2000)]);
    let at = |line: &str| line.strip_prefix(new.as_str()).unwrap_or(line).to_string();
    assert_eq!(
        at(lines[0]),
        ":6:5: warning[cel-rule-ratcheted]: spec.ml[0]: Invalid value: failed rule: self.v.size() < 5"
    );
    assert_eq!(
        at(lines[10_000]),
        ":10006:5: error[cel-rule-failed]: spec.ml[10000]: Invalid value: failed rule: self.v.size() < 5"
    );
    assert_eq!(
        lines[20_000],
        "2 files, 2 documents (1 CRD, 1 custom resource): 10000 errors, 10000 warnings"
    );
}

/// kube-apiserver refuses a request body over 3 MiB (`--max-request-body-bytes`) before
/// decoding it. Checked item by item, a 30 MB resource whose 15 million list items each
/// fail a rule made 5,000,001 errors in 38 s and 5.5 GB of memory; the server answers
/// with one error, and so does crdlint. The limit counts the JSON kubectl sends,
/// escapes included, to the byte.
#[test]
fn an_object_over_the_request_body_limit_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(
            "              s: {type: string}
              items:
                type: array
                items:
                  type: integer
                  x-kubernetes-validations:
                  - {rule: self == 1, message: m}
",
        ),
    );
    let head = "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\n";
    let mut items = String::from(head);
    items.push_str("spec:\n  items: [");
    items.push_str(&vec!["2"; 15_000_000].join(","));
    items.push_str("]\n");
    let path = write(dir.path(), "items.yaml", items);
    // Parsing 15 million nodes takes 1.3 GB.
    let (out, status) = check_bounded("short", &["--crds", &crd, &path], 2 * SMALL_MIB);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{path}:1:1: error[request-too-large]: Request entity too large: limit is 3145728\n1 file, 1 document (0 CRDs, 1 custom resource): 1 error, 0 warnings\n"
        )
    );

    // `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"t"},"spec":{"s":"…"}}`
    // and a line break: 87 bytes around the characters of the string; `&` is six bytes in
    // Go's JSON.
    let with_string = |s: &str| format!("{head}spec: {{s: \"{s}\"}}\n");
    let fits = format!("&{}", "x".repeat(3_145_728 - 87 - 6));
    let at_limit = write(dir.path(), "at-limit.yaml", with_string(&fits));
    let over = write(dir.path(), "over.yaml", with_string(&format!("{fits}x")));
    let (out, status) = check_short(&["--crds", &crd, &at_limit, &over]);
    assert_eq!(status, 1, "{out}");
    assert_eq!(
        out,
        format!(
            "{over}:1:1: error[request-too-large]: Request entity too large: limit is 3145728\n2 files, 2 documents (0 CRDs, 2 custom resources): 1 error, 0 warnings\n"
        )
    );

    // A CRD too large is refused unread too; its resources are still checked against
    // it, and each item of a List is a request of its own.
    let big_crd = write(
        dir.path(),
        "big-crd.yaml",
        crd_with_properties(&format!(
            "              s: {{type: string, description: \"{}\"}}\n",
            "d".repeat(3_200_000)
        )),
    );
    let list = write(
        dir.path(),
        "list.yaml",
        format!(
            "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: example.com/v1, kind: Thing, metadata: {{name: a}}, spec: {{s: 1}}}}\n- {{apiVersion: example.com/v1, kind: Thing, metadata: {{name: b}}, spec: {{s: \"{}\"}}}}\n",
            "x".repeat(3_200_000)
        ),
    );
    let (out, status) = check_short(&[&big_crd, &list]);
    assert_eq!(status, 1, "{out}");
    assert_eq!(
        out,
        format!(
            "{big_crd}:1:1: error[request-too-large]: Request entity too large: limit is 3145728\n\
             {list}:4:76: error[schema-violation]: spec.s: Invalid value: \"integer\": spec.s in body must be of type string: \"integer\"\n\
             {list}:5:3: error[request-too-large]: Request entity too large: limit is 3145728\n\
             2 files, 3 documents (1 CRD, 2 custom resources): 3 errors, 0 warnings\n"
        )
    );
}

/// An error can repeat a long text of the schema for every value it fails on: an enum of
/// 5,000 values quoted by each of 2,000 failing items (a 4 KB resource) made 230 MB of
/// output and 1.2 GB of memory; a 5,000-character messageExpression result repeated
/// for 50,000 items (100 KB) 254 MB; a 100,000-character key in the path of 10,000
/// schema errors (a 1 MB CRD) aborted crdlint on a 1.6 GB allocation; 2,000 four-line
/// resources each outside that enum (171 KB) made 230 MB. Each object's findings stop
/// at 64 MiB and a run's at 256 MiB, and crdlint says so.
#[test]
fn findings_that_repeat_long_texts_are_bounded_per_object() {
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..5_000).map(|i| format!("v{i:018}")).collect();
    let literal = "x".repeat(5_000);
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(&format!(
            "              names:
                type: array
                items: {{type: string, enum: [{}]}}
              counts:
                type: array
                items:
                  type: integer
                  x-kubernetes-validations:
                  - {{rule: self == 1, messageExpression: \"'{literal}'\"}}
",
            values.join(",")
        )),
    );
    let resource = |field: &str, item: &str, n: usize| {
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t}}\nspec:\n  {field}: [{}]\n",
            vec![item; n].join(",")
        )
    };
    for (name, text) in [
        ("enum.yaml", resource("names", "z", 2_000)),
        ("message.yaml", resource("counts", "2", 50_000)),
    ] {
        let path = write(dir.path(), name, text);
        let (out, status) = check_bounded("short", &["--crds", &crd, &path], SMALL_MIB);
        assert_eq!(status, 1, "{name}");
        assert!(out.len() < 96 << 20, "{name}: {} bytes", out.len());
        let limit = format!(
            "{path}:1:1: error[findings-limit]: crdlint stopped checking this object: its findings passed 64 MiB (the server would list more)\n"
        );
        assert_eq!(out.matches(&limit).count(), 1, "{name}");
    }

    // Many small resources each repeating the enum: bounded per run. Which resource
    // passes the limit depends on the threads; that one does is certain.
    let mut many = String::new();
    for i in 0..2_000 {
        many.push_str(&format!(
            "---\napiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t{i}}}\nspec: {{names: [z]}}\n"
        ));
    }
    let path = write(dir.path(), "many.yaml", many);
    let (out, status) = check_bounded("short", &["--crds", &crd, &path], SMALL_MIB);
    assert_eq!(status, 1);
    assert!(out.len() < 384 << 20, "{} bytes", out.len());
    assert!(
        out.contains(": error[findings-limit]: crdlint stopped checking: the findings of this run passed 256 MiB; this object and others were not checked to the end\n"),
        "{}",
        &out[out.len().saturating_sub(500)..]
    );

    // The object's name is attached to each finding: cut when longer than any valid
    // one (a 1 MB name on 20,000 findings made 20 GB of JSON).
    let small = write(
        dir.path(),
        "small.yaml",
        crd_with_properties("              n: {type: array, items: {type: integer, maximum: 1}}\n"),
    );
    let name = "a".repeat(1_000_000);
    let path = write(
        dir.path(),
        "long-name.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: {name}}}\nspec:\n  n: [{}]\n",
            vec!["2"; 20_000].join(",")
        ),
    );
    let (out, status) = check_bounded("json", &["--crds", &small, &path], SMALL_MIB);
    assert_eq!(status, 1);
    assert!(out.len() < 64 << 20, "{} bytes", out.len());
    let cut = format!("\"name\": \"{}…\"", &name[..320]);
    // 20,000 items above their maximum, and the name itself.
    assert_eq!(out.matches(&cut).count(), 20_001, "{}", &out[..2000]);

    let key = "k".repeat(100_000);
    let kids: Vec<String> = (0..10_000).map(|i| format!("\"a{i}\": {{}}")).collect();
    let big_key = write(
        dir.path(),
        "key.json",
        format!(
            "{{\"apiVersion\": \"apiextensions.k8s.io/v1\", \"kind\": \"CustomResourceDefinition\", \"metadata\": {{\"name\": \"things.example.com\"}}, \"spec\": {{\"group\": \"example.com\", \"scope\": \"Namespaced\", \"names\": {{\"plural\": \"things\", \"kind\": \"Thing\"}}, \"versions\": [{{\"name\": \"v1\", \"served\": true, \"storage\": true, \"schema\": {{\"openAPIV3Schema\": {{\"type\": \"object\", \"properties\": {{\"{key}\": {{\"type\": \"object\", \"properties\": {{{}}}}}}}}}}}}}]}}}}",
            kids.join(", ")
        ),
    );
    let (out, status) = check_bounded("short", &[&big_key], SMALL_MIB);
    assert_eq!(status, 1);
    assert!(out.len() < 96 << 20, "{} bytes", out.len());
    let limit = format!(
        "{big_key}:1:1: error[findings-limit]: crdlint stopped checking this object: its findings passed 64 MiB (the server would list more)\n"
    );
    assert_eq!(out.matches(&limit).count(), 1);
}

/// The server reports every controller reference after the first, each error quoting the
/// whole list (output quadratic in the list: 3,000 references made 713 MB); crdlint stops
/// once the quoted lists reach a MiB. 20,000 copies of two references are deduplicated
/// in linear time. Found while checking the owner-reference dedup.
#[test]
fn many_owner_references_give_bounded_output() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties("              size: {type: integer}\n"),
    );
    let resource = |refs: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\n  ownerReferences:\n{refs}"
        )
    };
    let mut distinct = String::new();
    for i in 0..3_000 {
        distinct.push_str(&format!(
            "  - {{apiVersion: v1, kind: Pod, name: p{i}, uid: u{i}, controller: true}}\n"
        ));
    }
    let path = write(dir.path(), "distinct.yaml", resource(&distinct));
    let (out, status) = check_bounded("short", &["--crds", &crd, &path], SMALL_MIB);
    assert_eq!(status, 1);
    assert!(out.len() < 2 << 20, "{} bytes", out.len());
    assert_eq!(out.matches("Only one reference can have Controller set to true. Found \"true\" in references for Pod/p0 and Pod/p").count(), 5);
    assert!(
        out.ends_with(": 5 errors, 0 warnings\n"),
        "{}",
        &out[out.len() - 200..]
    );

    let mut copies = String::new();
    for i in 0..20_000 {
        copies.push_str(&format!(
            "  - {{apiVersion: v1, kind: Pod, name: p{}, uid: u, controller: true}}\n",
            i % 2
        ));
    }
    let path = write(dir.path(), "copies.yaml", resource(&copies));
    let (out, status) = check_bounded("short", &["--crds", &crd, &path], SMALL_MIB);
    assert_eq!(status, 1);
    assert_eq!(
        out.matches("error[invalid-metadata]").count(),
        1,
        "{}",
        &out[..300]
    );
    assert_eq!(out.matches("warning[duplicate-owner-reference]").count(), 1);

    // A CRD's own metadata goes through the same checks (its 3,000 references made
    // 1.2 GB of JSON in 7 s and 1.7 GB of memory; two copies of one controller
    // reference were refused, where the server drops the copy and warns).
    let crd_with_refs = |refs: &str| {
        crd_with_properties("              size: {type: integer}\n").replacen(
            "metadata:\n",
            &format!("metadata:\n  ownerReferences:\n{refs}"),
            1,
        )
    };
    let path = write(dir.path(), "crd-distinct.yaml", crd_with_refs(&distinct));
    let (out, status) = check_bounded("json", &[&path], SMALL_MIB);
    assert_eq!(status, 1);
    assert!(out.len() < 2 << 20, "{} bytes", out.len());
    // In JSON, each error's text is in its `message` and its `detail`.
    assert_eq!(
        out.matches("\"detail\": \"Only one reference can have Controller set to true. Found \\\"true\\\" in references for Pod/p0 and Pod/p").count(),
        5
    );
    let path = write(dir.path(), "crd-copies.yaml", crd_with_refs(&copies));
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 1);
    assert_eq!(
        out.matches("error[crd-metadata]").count(),
        1,
        "{}",
        &out[..300]
    );
    assert_eq!(out.matches("warning[duplicate-owner-reference]").count(), 1);
    let path = write(
        dir.path(),
        "crd-one-copy.yaml",
        crd_with_refs(
            &copies
                .lines()
                .take(1)
                .map(|l| format!("{l}\n{l}\n"))
                .collect::<String>(),
        ),
    );
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out.lines().next().unwrap().split_once(": ").unwrap().1,
        "warning[duplicate-owner-reference]: .metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: u"
    );
}

/// A rule's message, a description or a file name can carry control characters; printed
/// raw, `ESC ] 0 ; … BEL` would retitle the user's terminal and `ESC [` recolour or clear
/// it. Terminal formats show them escaped; JSON keeps the exact text.
#[cfg(unix)]
#[test]
fn control_characters_from_checked_files_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(
            "              a: {type: integer, description: \"d\\e[31mred\\a\"}
            x-kubernetes-validations:
            - rule: \"self.a != 1 && '\\e[2J' != ''\"
              message: \"\\e]0;pwned\\a\\e[2J\"
",
        ),
    );
    write(
        dir.path(),
        "cr\x1b[2J.yaml",
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {a: 1}\n",
    );
    let dir_path = dir.path().to_str().unwrap();
    let (short, status) = check_short(&[dir_path]);
    assert_eq!(status, 1, "{short}");
    assert_eq!(
        short,
        format!(
            "{dir_path}/cr\\x1b[2J.yaml:4:7: error[cel-rule-failed]: spec: Invalid value: \\x1b]0;pwned\\a\\x1b[2J\n\
             2 files, 2 documents (1 CRD, 1 custom resource): 1 error, 0 warnings\n"
        )
    );
    let run = |args: &[&str]| {
        let output = Command::cargo_bin("crdlint")
            .unwrap()
            .args(args)
            .timeout(HANG_GUARD)
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    for args in [
        &["check", "--color", "never", dir_path][..],
        &["check", "-o", "github", dir_path],
        &["explain", "--crds", &crd, "thing.spec"],
        &["cost", "--color", "always", &crd],
    ] {
        let out = run(args);
        assert!(
            !out.contains('\x07') && !out.contains("\x1b]") && !out.contains("\x1b[2J"),
            "{args:?}: {out}"
        );
        assert!(out.contains("\\x1b"), "{args:?}: {out}");
    }
    let json = run(&["check", "-o", "json", dir_path]);
    assert!(
        json.contains(r#""message": "spec: Invalid value: \u001b]0;pwned\u0007\u001b[2J""#),
        "{json}"
    );
}

/// A file may be called anything a file system allows, a line feed included: the short
/// format (one finding per line, for grep and quickfix lists) writes it `\n`, as Go's
/// `%q` does, and the GitHub format percent-encodes it.
#[cfg(unix)]
#[test]
fn a_line_feed_in_a_file_name_keeps_one_finding_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples");
    for (from, to) in [
        ("crontab-crd.yaml", "crd.yaml"),
        ("invalid-crontab.yaml", "in\nvalid.yaml"),
    ] {
        std::fs::copy(examples.join(from), dir.path().join(to)).unwrap();
    }
    let dir_path = dir.path().to_str().unwrap();
    let (short, status) = check_short(&[dir_path]);
    assert_eq!(status, 1, "{short}");
    let lines: Vec<&str> = short.lines().collect();
    assert_eq!(lines.len(), 3, "{short}");
    assert!(
        lines[1].starts_with(&format!(
            "{dir_path}/in\\nvalid.yaml:10:13: error[schema-violation]: spec.replicas: Invalid value: 15"
        )),
        "{short}"
    );
    let github = Command::cargo_bin("crdlint")
        .unwrap()
        .args(["check", "-o", "github", dir_path])
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    let github = String::from_utf8(github.stdout).unwrap();
    assert_eq!(github.lines().count(), 3, "{github}");
    assert!(
        github.contains("in%0Avalid.yaml,line=10,col=13"),
        "{github}"
    );
}

/// Folds and lookups whose cel-go cost does not grow with the size of what they touch:
/// a list built by `map`/`filter` (appending costs 1), a map built by `transformMap`,
/// `k in m` and `m[k]` (1 each), set and map list `==` (a tenth of their size) and
/// `+` (1). Each used to copy or read the whole list or map per step (`map` over
/// 50,000 items took 22 s; these rules on this 1.4 MB resource, 100 s); cel-go
/// appends, hashes and indexes. Every rule is within the cost limits, so a CRD the
/// server accepts could meet such a resource.
#[test]
fn folds_and_lookups_over_large_lists_and_maps_take_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let rules = [
        "self.c0.map(c, c + 1).size() == 0",
        "self.c1.map(c, c + 1).size() == 0",
        "self.c2.filter(c, c >= 0).size() == 0",
        "self.c3.filter(c, c >= 0).size() == 0",
        "self.c4.transformMap(i, c, c).size() == 0",
        "self.c5.transformMap(i, c, c).size() == 0",
        "self.names.all(n, n in self.owners && self.owners[n] != '')",
        "self.tags == self.tags && self.ports == self.ports",
        "size(self.tags + self.tags) == 0",
        "size(self.ports + self.ports) == 0",
    ];
    let rule_lines: String = rules
        .iter()
        .map(|r| format!("            - rule: \"{r}\"\n"))
        .collect();
    let count_fields: String = (0..6)
        .map(|i| {
            format!(
                "              c{i}: {{type: array, maxItems: 60000, items: {{type: integer}}}}\n"
            )
        })
        .collect();
    let crd = write(
        dir.path(),
        "crd.yaml",
        format!(
            "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: tallies.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {{plural: tallies, singular: tally, kind: Tally, listKind: TallyList}}
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
{rule_lines}            properties:
{count_fields}              names: {{type: array, maxItems: 20000, items: {{type: string, maxLength: 8}}}}
              owners: {{type: object, maxProperties: 20000, additionalProperties: {{type: string, maxLength: 8}}}}
              tags: {{type: array, maxItems: 20000, x-kubernetes-list-type: set, items: {{type: string, maxLength: 8}}}}
              ports:
                type: array
                maxItems: 10000
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items: {{type: object, required: [port], properties: {{port: {{type: integer}}}}}}
"
        ),
    );
    let names: Vec<String> = (0..20_000).map(|i| format!("n{i}")).collect();
    let mut spec = serde_json::json!({
        "names": names,
        "owners": names.iter().map(|n| (n.clone(), "o".into())).collect::<serde_json::Map<_, _>>(),
        "tags": names,
        "ports": (0..10_000).map(|i| serde_json::json!({ "port": i })).collect::<Vec<_>>(),
    });
    let counts: Vec<u32> = (0..60_000).map(|i| i % 10).collect();
    for i in 0..6 {
        spec[format!("c{i}")] = counts.clone().into();
    }
    let cr = write(
        dir.path(),
        "cr.json",
        serde_json::json!({
            "apiVersion": "example.com/v1",
            "kind": "Tally",
            "metadata": {"name": "t", "namespace": "default"},
            "spec": spec,
        })
        .to_string(),
    );
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert_eq!(status, 1);
    // The CRD is accepted; the two `true` rules pass, the others fail as written.
    let failed = |rule: &str| {
        format!("{cr}:1:100: error[cel-rule-failed]: spec: Invalid value: failed rule: {rule}\n")
    };
    let mut expected: String = [0, 1, 2, 3, 4, 5, 9, 8].map(|i| failed(rules[i])).concat();
    expected += "2 files, 2 documents (1 CRD, 1 custom resource): 8 errors, 0 warnings\n";
    assert_eq!(out, expected);
}

/// The warning for a rule of `spec` in `cr` (at `line`, column 7) not evaluated past
/// the evaluator's work limit.
fn past_work_limit(cr: &str, line: usize, rule: &str) -> String {
    format!(
        "{cr}:{line}:7: warning[cel-not-evaluated]: spec: rule not evaluated by crdlint (crdlint stopped evaluating the object's rules after 268435456 units of work their CEL cost does not count (values copied, characters read, elements compared): a limit of crdlint's own, see docs/limits.md): {rule}\n"
    )
}

/// The three errors of a CRD whose rule (at `rule_at` in `crd`, under `rule_field`) the
/// static cost estimate refuses by a factor of more than 100.
fn refused_over_100x(crd: &str, rule_at: &str, rule_field: &str) -> String {
    let hint = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    format!(
        "{crd}:14:7: error[cel-cost-total]: spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x {hint}\n\
         {crd}:{rule_at}: error[cel-cost-rule]: {rule_field}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x {hint}\n\
         {crd}:{rule_at}: error[cel-cost-total]: {rule_field}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n"
    )
}

/// What crdlint still copies where cel-go shares (`+` on lists, which costs 1): past
/// its own work limit for the object, its rules are not evaluated (one warning, not a
/// verdict). This rule copies 50,000 items 50,000 times (2.5 billion values: 11 s
/// before the limit) for an estimated cost of 950,003, within the server's limits (ten
/// such rules would have taken minutes).
#[test]
fn rules_that_would_copy_billions_of_values_are_not_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let rule = "self.counts.all(c, size(self.counts + [c]) > 0)";
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(&format!(
            "              counts: {{type: array, maxItems: 50000, items: {{type: integer, x-kubernetes-validations: [{{rule: \"self >= 0\"}}]}}}}
            x-kubernetes-validations:
            - rule: \"{rule}\"
            - rule: \"size(self.counts) == 0\"
"
        )),
    );
    let counts = vec!["0"; 50_000].join(",");
    let cr = write(
        dir.path(),
        "cr.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t, namespace: default}}\nspec: {{counts: [{counts}]}}\n"
        ),
    );
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert_eq!(status, 0);
    assert_eq!(
        out,
        // One warning: no rule of the object runs after it (not the second rule here,
        // nor a rule of each of its 50,000 items, which made 50,001 warnings).
        past_work_limit(&cr, 4, rule)
            + "2 files, 2 documents (1 CRD, 1 custom resource): 0 errors, 1 warning\n"
    );
}

/// Calls that cel-go charges 1 however long their string (`isURL`), and a quantity
/// whose digits are read into a big number (time grows with their square): a rule
/// that repeats them over a list read a 1 MB string 20,000 times (80 s), and parsed
/// a 1 MB quantity in 0.9 s. Past crdlint's work limit such rules are not evaluated.
#[test]
fn rules_that_would_read_a_long_string_many_times_are_not_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(
            "              l: {type: array, maxItems: 20000, items: {type: integer}}
              s: {type: string, maxLength: 1000000}
            x-kubernetes-validations:
            - rule: \"self.l.all(c, !isURL(self.s))\"
",
        ),
    );
    let quantity_crd = write(
        dir.path(),
        "quantity-crd.yaml",
        crd_with_properties(
            "              s: {type: string, maxLength: 1000000}
            x-kubernetes-validations:
            - rule: \"isQuantity(self.s)\"
",
        )
        .replace("things", "quantities")
        .replace("Thing", "Quantity"),
    );
    let digits = "1".repeat(1_000_000);
    let zeros = vec!["0"; 20_000].join(",");
    let cr = write(
        dir.path(),
        "cr.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t, namespace: default}}\nspec: {{s: \"{digits}\", l: [{zeros}]}}\n---\napiVersion: example.com/v1\nkind: Quantity\nmetadata: {{name: q, namespace: default}}\nspec: {{s: \"{digits}\"}}\n"
        ),
    );
    let (out, status) = check_bounded("short", &[&crd, &quantity_crd, &cr], SMALL_MIB);
    assert_eq!(status, 0);
    assert_eq!(
        out,
        past_work_limit(&cr, 4, "self.l.all(c, !isURL(self.s))")
            + &past_work_limit(&cr, 9, "isQuantity(self.s)")
            + "3 files, 4 documents (2 CRDs, 2 custom resources): 0 errors, 2 warnings\n"
    );
}

/// An update of a 40,000-key map, its values under a transition rule and a pattern
/// the old values already broke (ratcheted): each value's old counterpart was found by
/// reading the old map (9.7 s; 4.3 s without the rule); now by an index kept for the
/// walk.
#[test]
fn an_update_of_a_forty_thousand_key_map_is_correlated_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(
            "              o:
                type: object
                maxProperties: 40000
                additionalProperties:
                  type: string
                  maxLength: 16
                  pattern: '^v'
                  x-kubernetes-validations: [{rule: \"self == oldSelf\"}]
",
        ),
    );
    let object = |values: &dyn Fn(usize) -> String, reversed: bool| {
        let mut keys: Vec<usize> = (0..40_000).collect();
        if reversed {
            keys.reverse();
        }
        let entries: Vec<String> = keys
            .iter()
            .map(|&i| format!("\"k{i}\": \"{}\"", values(i)))
            .collect();
        format!(
            "{{\"apiVersion\": \"example.com/v1\", \"kind\": \"Thing\", \"metadata\": {{\"name\": \"t\", \"namespace\": \"default\"}}, \"spec\": {{\"o\": {{{}}}}}}}\n",
            entries.join(", ")
        )
    };
    // Every old value breaks the pattern; the new object changes two of them.
    let old = write(dir.path(), "old.json", object(&|i| format!("x{i}"), true));
    let new = write(
        dir.path(),
        "new.json",
        object(
            &|i| match i {
                7 | 39_999 => "changed".into(),
                _ => format!("x{i}"),
            },
            false,
        ),
    );
    let (out, status) = check_bounded("short", &[&crd, &new, "--old", &old], SMALL_MIB);
    assert_eq!(status, 1);
    let at = |i: usize| {
        let key = format!("\"k{i}\": ");
        let text = std::fs::read_to_string(&new).unwrap();
        text.find(&key).unwrap() + key.len() + 1
    };
    let finding = |i: usize, what: &str| format!("{new}:1:{}: error[{what}\n", at(i),);
    assert_eq!(
        out,
        [
            finding(7, "cel-rule-failed]: spec.o[k7]: Invalid value: \"changed\": failed rule: self == oldSelf"),
            finding(7, "schema-violation]: spec.o.k7: Invalid value: \"changed\": spec.o.k7 in body should match '^v'"),
            finding(39_999, "cel-rule-failed]: spec.o[k39999]: Invalid value: \"changed\": failed rule: self == oldSelf"),
            finding(39_999, "schema-violation]: spec.o.k39999: Invalid value: \"changed\": spec.o.k39999 in body should match '^v'"),
        ]
        .concat()
            + "2 files, 2 documents (1 CRD, 1 custom resource): 4 errors, 0 warnings\n"
    );
}

/// An enum of 20,000 values (a 300 KB CRD) checked on 150,000 items (2 MB): each item
/// was compared with the members in turn, 3 billion comparisons in 8 s, and a 3 MiB
/// CRD and resource allow hundreds of times more. Members are now found by hash,
/// with kube-openapi's conversions between numbers and strings.
#[test]
fn a_long_enum_checks_each_value_in_constant_time() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<String> = (0..20_000).map(|i| format!("\"value-{i:05}\"")).collect();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(&format!(
            "              l: {{type: array, items: {{type: string, enum: [{}]}}}}\n",
            members.join(", ")
        )),
    );
    let mut items = vec!["\"value-19999\""; 150_000];
    items[5] = "\"nope\"";
    items[7] = "65";
    let cr = write_list_resource(dir.path(), &items);
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert_eq!(status, 1);
    let column = |i: usize| list_item_column(&items, i);
    let supported = members.join(", ");
    assert_eq!(
        out,
        format!(
            "{cr}:1:{}: error[schema-violation]: spec.l[5]: Unsupported value: \"nope\": supported values: {supported}\n\
             {cr}:1:{}: error[schema-violation]: spec.l[7]: Invalid value: \"integer\": spec.l[7] in body must be of type string: \"integer\"\n\
             {cr}:1:{}: error[schema-violation]: spec.l[7]: Unsupported value: 65: supported values: {supported}\n\
             2 files, 2 documents (1 CRD, 1 custom resource): 3 errors, 0 warnings\n",
            column(5),
            column(7),
            column(7),
        )
    );
}

/// An enum of 20,000 maps checked on 100,000 map items: each item was deep-compared
/// with the members in turn (64 million comparisons took 2 s at a tenth of this size;
/// this took minutes). Members are grouped by a hash that deeply equal values share.
#[test]
fn a_long_enum_of_maps_checks_each_value_in_constant_time() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<String> = (0..20_000)
        .map(|i| format!("{{k: {i}, name: m}}"))
        .collect();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(&format!(
            "              l: {{type: array, items: {{type: object, x-kubernetes-preserve-unknown-fields: true, enum: [{}]}}}}\n",
            members.join(", ")
        )),
    );
    let mut items = vec!["{\"name\": \"m\", \"k\": 19999}"; 100_000];
    // DeepEqual tells a float from an integer, and a missing key from a null one.
    items[5] = "{\"k\": 19999.5, \"name\": \"m\"}";
    items[7] = "{\"k\": 1, \"name\": \"m\", \"x\": null}";
    let cr = write_list_resource(dir.path(), &items);
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert_eq!(status, 1);
    let column = |i: usize| list_item_column(&items, i);
    let supported: Vec<String> = (0..20_000)
        .map(|i| format!("\"{{\\\"k\\\":{i},\\\"name\\\":\\\"m\\\"}}\""))
        .collect();
    let supported = supported.join(", ");
    assert_eq!(
        out,
        format!(
            "{cr}:1:{}: error[schema-violation]: spec.l[5]: Unsupported value: {{\"k\":19999.5,\"name\":\"m\"}}: supported values: {supported}\n\
             {cr}:1:{}: error[schema-violation]: spec.l[7]: Unsupported value: {{\"k\":1,\"name\":\"m\",\"x\":null}}: supported values: {supported}\n\
             2 files, 2 documents (1 CRD, 1 custom resource): 2 errors, 0 warnings\n",
            column(5),
            column(7),
        )
    );
}

/// A CRD whose `spec` has one object property named `name` (given as an explicit key:
/// an implicit one may not be longer than 1,024 characters), `body` its other keys.
fn crd_with_property_named(name: &str, body: &str) -> String {
    crd_with_properties(&format!(
        "              ? {name}\n              : type: object\n                {body}\n"
    ))
}

/// The property name of the long-path tests: 50,000 characters.
fn long_name() -> String {
    "p".repeat(50_000)
}

/// A CRD whose [`long_name`] property has the properties `entry(i)` for `i < n` (each
/// `key: {...}`) in one flow mapping on line 22, and those entries.
fn crd_with_long_named_properties(
    n: usize,
    entry: impl Fn(usize) -> String,
) -> (String, Vec<String>) {
    let entries: Vec<String> = (0..n).map(entry).collect();
    let crd = crd_with_property_named(
        &long_name(),
        &format!("properties: {{{}}}", entries.join(", ")),
    );
    (crd, entries)
}

/// The column of the `i`th entry of [`crd_with_long_named_properties`] on line 22.
fn entry_column(entries: &[String], i: usize) -> usize {
    30 + entries[..i].iter().map(|e| e.len() + 2).sum::<usize>()
}

/// Checks `crd` (`-o short`) within [`SMALL_MIB`]: it stops at the findings limit
/// after 666 findings of `code`, the `i`th of which is `expected(path, i)`.
fn assert_stops_at_the_findings_limit(
    crd: String,
    code: &str,
    expected: impl Fn(&str, usize) -> String,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "crd.yaml", crd);
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{path}:1:1: error[findings-limit]: crdlint stopped checking this object: its findings passed 64 MiB (the server would list more)"
        )
    );
    let errors: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains(&format!("error[{code}]")))
        .collect();
    assert_eq!(errors.len(), 666);
    for (i, line) in errors.iter().enumerate() {
        assert_eq!(*line, expected(&path, i));
    }
    assert_eq!(
        lines.last().copied(),
        Some("1 file, 1 document (1 CRD, 0 custom resources): 667 errors, 0 warnings")
    );
}

/// Invalid defaults were charged to the CRD's findings without the path they are
/// placed under: 30,000 of them under a property named with 50,000 characters (a
/// 1 MB CRD) asked for more than 2 GiB and aborted crdlint.
#[test]
fn invalid_defaults_under_a_long_path_stop_at_the_findings_limit() {
    let name = long_name();
    let (crd, properties) =
        crd_with_long_named_properties(30_000, |i| format!("d{i}: {{type: integer, default: x}}"));
    assert_stops_at_the_findings_limit(crd, "schema-invalid-default", |path, i| {
        // The default is the item's last value (`x}`).
        let column = entry_column(&properties, i) + properties[i].len() - 2;
        format!(
            "{path}:22:{column}: error[schema-invalid-default]: spec.validation.openAPIV3Schema.properties[spec].properties[{name}].properties[d{i}].default: Invalid value: \"string\":  in body must be of type integer: \"string\""
        )
    });
}

/// CEL compile errors repeat the node's path twice and the rule: under a property
/// named with 50,000 characters, 20,000 rules that do not compile (a 560 KB CRD)
/// asked for more than 2 GiB and aborted crdlint. They are charged to the CRD's
/// findings now, and the rules left are not compiled once those pass the limit.
#[test]
fn cel_compile_errors_under_a_long_path_stop_at_the_findings_limit() {
    let name = long_name();
    let rules: Vec<String> = (0..20_000)
        .map(|i| format!("{{rule: 'self.b > {i}'}}"))
        .collect();
    let crd = crd_with_property_named(
        &name,
        &format!(
            "properties: {{a: {{type: integer}}}}\n                x-kubernetes-validations: [{}]",
            rules.join(", ")
        ),
    );
    assert_stops_at_the_findings_limit(crd, "cel-compile-error", |path, i| {
        let rule = format!(
            "{{\"Rule\":\"self.b \\u003e {i}\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}}"
        );
        let column = 56 + rules[..i].iter().map(|r| r.len() + 2).sum::<usize>();
        format!(
            "{path}:23:{column}: error[cel-compile-error]: spec.validation.openAPIV3Schema.properties[spec].properties[{name}].x-kubernetes-validations[{i}].rule: Invalid value: {rule}: compilation failed: ERROR: <input>:1:5: undefined field 'b'"
        )
    });
}

/// `--old` with 6,000 stored versions, none in a new CRD whose 6,000 versions all claim
/// storage: the server's error for each storage version quotes the whole stored list,
/// so the errors grow with the square of the count. They were built in full (with a
/// scan of the list for each version): 8,000 of each took 21 s and 5 GB. The list is
/// now rendered once and the errors stop at the findings limit.
#[test]
fn storage_errors_quoting_a_long_stored_list_stop_at_the_findings_limit() {
    let dir = tempfile::tempdir().unwrap();
    let n = 6_000;
    let head = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: things, kind: Thing}
  versions:
";
    let version = |name: &str| {
        format!(
            "  - {{name: {name}, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object}}}}}}\n"
        )
    };
    let mut new = head.to_string();
    for i in 0..n {
        new.push_str(&version(&format!("v{i}")));
    }
    let stored: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let old = format!(
        "{head}{}status:\n  storedVersions: [{}]\n",
        version("x0"),
        stored.join(", ")
    );
    let new = write(dir.path(), "crd.yaml", new);
    let old = write(dir.path(), "old.yaml", old);
    let (out, status) = check_bounded("short", &[&new, "--old", &old], SMALL_MIB);
    assert_eq!(status, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{new}:1:1: error[findings-limit]: crdlint stopped checking this object: its findings passed 64 MiB (the server would list more)"
        )
    );
    // The first storage version joins the stored ones, as the server's strategy adds it.
    let quoted = format!(
        "[{},\"v0\"]",
        stored
            .iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let storage_errors: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("must have the storage version"))
        .collect();
    assert_eq!(
        *storage_errors[0],
        format!(
            "{new}:11:30: error[crd-versions]: status.storedVersions: Invalid value: {quoted}: must have the storage version v1"
        )
    );
    assert_eq!(storage_errors.len(), 1_399);
    let missing = lines
        .iter()
        .filter(|l| l.contains("was previously a storage version"))
        .count();
    assert_eq!(missing, n);
    assert_eq!(
        lines.last().unwrap(),
        &"1 file, 1 document (1 CRD, 0 custom resources): 7401 errors, 0 warnings"
    );
}

/// `uniqueItems: true` is forbidden in a CRD, but crdlint still checks resources
/// against the rest of it, the list included: every item was compared with every
/// earlier one (160,000 items: 30 s). Items are now compared only with those of the
/// same structural hash.
#[test]
fn unique_items_over_a_long_list_are_compared_by_hash() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(
            "              l: {type: array, uniqueItems: true, items: {type: string}}\n",
        ),
    );
    let mut items: Vec<String> = (0..150_000).map(|i| format!("\"s{i}\"")).collect();
    items.push("\"s77\"".into());
    let cr = write_list_resource(dir.path(), &items);
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        format!(
            "{cr}:1:116: error[schema-violation]: spec.l: Invalid value: \"\": spec.l in body shouldn't contain duplicates\n\
             {crd}:20:32: error[schema-forbidden-field]: spec.validation.openAPIV3Schema.properties[spec].properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic\n\
             2 files, 2 documents (1 CRD, 1 custom resource): 2 errors, 0 warnings\n"
        )
    );
}

/// `distinct()` compares every pair of items before cel-go charges its cost (twice the
/// square of the size): over 300,000 items that was minutes of comparisons for an
/// answer known from the size alone. crdlint stops where the charge after the call
/// would, with the server's error.
#[test]
fn a_distinct_past_the_cost_limit_stops_before_comparing() {
    let dir = tempfile::tempdir().unwrap();
    let rule = "self.l.distinct().size() > 0";
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(&format!(
            "              l: {{type: array, items: {{type: integer}}}}
            x-kubernetes-validations:
            - rule: \"{rule}\"
"
        )),
    );
    let items: Vec<String> = (0..300_000).map(|i| i.to_string()).collect();
    let cr = write(
        dir.path(),
        "cr.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t, namespace: default}}\nspec: {{l: [{}]}}\n",
            items.join(",")
        ),
    );
    let (out, status) = check_bounded("short", &[&crd, &cr], SMALL_MIB);
    assert_eq!(status, 1);
    let rule_field =
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
    // The CRD is refused too (no maxItems): the static estimate.
    let refused = refused_over_100x(&crd, "22:21", rule_field);
    assert_eq!(
        out,
        format!(
            "{cr}:4:7: error[cel-runtime-error]: spec: Invalid value: \"object\": validation failed due to running out of cost budget, no further validation rules will be run\n\
             {refused}2 files, 2 documents (1 CRD, 1 custom resource): 4 errors, 0 warnings\n"
        )
    );
}

/// A default is copied into every object, list item and map value that lacks it: a
/// 100 KB default on each of 300,000 `{}` items (a 900 KB resource) asked for 30 GB
/// and aborted crdlint on a failed allocation. Defaulting stops at 16 MiB of JSON; a
/// resource within the limit is defaulted and checked as before.
#[test]
fn defaults_copied_into_every_item_stop_at_the_defaults_limit() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(dir.path(), "crd.yaml", crd_with_a_100_kb_item_default());
    let bomb = format!(
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: bomb}}\nspec: {{items: [{}]}}\n",
        vec!["{}"; 300_000].join(",")
    );
    let bomb = write(dir.path(), "bomb.yaml", bomb);
    let fine = write(
        dir.path(),
        "fine.yaml",
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: fine}\nspec: {items: [{}, {count: 6}]}\n",
    );
    let (out, status) = check_bounded("short", &[&crd, &bomb, &fine], SMALL_MIB);
    assert_eq!(status, 1, "{out}");
    assert_eq!(
        out,
        format!(
            "{bomb}:1:1: error[defaults-limit]: crdlint stopped checking this object: its CRD's defaults would make it larger than 16 MiB (at spec.items[167].x); the server could not store it\n\
             {fine}:4:28: error[schema-violation]: spec.items[1].count: Invalid value: 6: spec.items[1].count in body should be less than or equal to 5\n\
             3 files, 3 documents (1 CRD, 2 custom resources): 2 errors, 0 warnings\n"
        )
    );
}

/// Each resource within the limit, many together past what a run may default: 60
/// resources of 150 empty items (about 15 MiB of defaults each, 900 MiB in all, from a
/// 32 KB file). Before the run's limit, 300 such resources (165 KB) took 11 s to check
/// and 24 GB of memory to print with `dry-run`. The run's defaults stop at 256 MiB: 17
/// resources fit (one thread, so which ones is fixed).
#[test]
fn defaults_of_many_resources_stop_at_the_runs_defaults_limit() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(dir.path(), "crd.yaml", crd_with_a_100_kb_item_default());
    let items = vec!["{}"; 150].join(",");
    let docs: Vec<String> = (0..60)
        .map(|i| format!("apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t{i}}}\nspec: {{items: [{items}]}}\n"))
        .collect();
    let many = write(dir.path(), "many.yaml", docs.join("---\n"));
    for command in ["check", "dry-run"] {
        let bin = assert_cmd::cargo::cargo_bin("crdlint");
        let args: &[&str] = if command == "check" {
            &["check", "--no-config", "-o", "short", &crd, &many]
        } else {
            &["dry-run", "--crds", &crd, &many]
        };
        let output = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", 4096 * 1024))
            .arg(bin)
            .args(args)
            .env("RAYON_NUM_THREADS", "1")
            .timeout(PRINTING_HANG_GUARD)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(if command == "check" {
            &output.stdout
        } else {
            &output.stderr
        })
        .into_owned();
        assert_eq!(output.status.code(), Some(1), "{command}: {report}");
        let stops: Vec<&str> = report
            .lines()
            .filter(|l| l.contains("defaults-limit"))
            .collect();
        if command == "check" {
            assert_eq!(stops.len(), 43, "{report}");
            for (line, i) in stops.iter().zip(17..) {
                assert_eq!(
                    *line,
                    format!(
                        "{many}:{}:1: error[defaults-limit]: crdlint stopped checking this object: the defaults applied to the objects of this run passed 256 MiB (at spec.items[{}].x)",
                        5 * i + 1,
                        if i == 17 { 137 } else { 0 }
                    )
                );
            }
            assert!(
                report.ends_with(
                    "2 files, 61 documents (1 CRD, 60 custom resources): 43 errors, 0 warnings\n"
                ),
                "{report}"
            );
        } else {
            // 17 objects printed as a v1 List.
            let printed = String::from_utf8_lossy(&output.stdout);
            assert_eq!(printed.matches("\n  kind: Thing\n").count(), 17, "{report}");
            assert_eq!(report.matches("× ").count(), 43, "{report}");
        }
    }
}

fn crd_with_a_100_kb_item_default() -> String {
    let big: Vec<String> = (0..1000)
        .map(|i| format!("k{i}: {}", "v".repeat(90)))
        .collect();
    let props: Vec<String> = (0..1000)
        .map(|i| format!("k{i}: {{type: string}}"))
        .collect();
    crd_with_properties(&format!(
        "              items:
                type: array
                items:
                  type: object
                  properties:
                    x: {{type: object, default: {{{}}}, properties: {{{}}}}}
                    count: {{type: integer, maximum: 5}}
",
        big.join(", "),
        props.join(", ")
    ))
}

/// cel-go charges `==` on objects by their number of fields and compares them to the
/// bottom: `self == self` on an object holding 400,000 integers costs 2. 2,000 such
/// terms (estimated cost 4,000) compared 800 million elements in 4 s; the comparisons
/// beyond ten per unit of cost are evaluator work, and the rule stops at its limit. The
/// same comparisons of a list, which cel-go charges by its length, are evaluated.
#[test]
fn object_equality_that_compares_far_more_than_it_costs_is_not_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let terms = |t: &str| vec![t; 2000].join(" && ");
    let (objects, lists) = (terms("self == self"), terms("self.l == self.l"));
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(&format!(
            "              l: {{type: array, maxItems: 400000, items: {{type: integer}}}}
            x-kubernetes-validations:
            - rule: \"{objects}\"
"
        )),
    );
    let list_crd = crd_with_properties(&format!(
        "              l: {{type: array, maxItems: 1000, items: {{type: integer}}}}
            x-kubernetes-validations:
            - rule: \"{lists}\"
            - rule: \"self.l.size() == 1\"
"
    ))
    .replace("things.example.com", "things.lists.example.com")
    .replace("group: example.com", "group: lists.example.com");
    let list_crd = write(dir.path(), "lists.yaml", list_crd);
    let l = vec!["7"; 400_000].join(",");
    let cr = write(
        dir.path(),
        "cr.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t, namespace: default}}\nspec: {{l: [{l}]}}\n"
        ),
    );
    let l = vec!["7"; 1000].join(",");
    let list_cr = write(
        dir.path(),
        "list.yaml",
        format!(
            "apiVersion: lists.example.com/v1\nkind: Thing\nmetadata: {{name: t, namespace: default}}\nspec: {{l: [{l}]}}\n"
        ),
    );
    let (out, status) = check_bounded("short", &[&crd, &list_crd, &cr, &list_cr], SMALL_MIB);
    assert_eq!(status, 1, "{out}");
    let mut want = past_work_limit(&cr, 4, &objects);
    want.push_str(&format!(
        "{list_cr}:4:7: error[cel-rule-failed]: spec: Invalid value: failed rule: self.l.size() == 1\n"
    ));
    want.push_str("4 files, 4 documents (2 CRDs, 2 custom resources): 1 error, 1 warning\n");
    assert_eq!(out, want);
}

/// Unknown fields were not charged to the object's findings: each kept its path four
/// times (the pruner's record, the message, the detail, the field). 30,000 of them
/// under a property named with 50,000 characters (a 1.3 MB resource) asked for more
/// than 2 GiB and aborted crdlint.
#[test]
fn unknown_fields_under_a_long_path_stop_at_the_findings_limit() {
    let dir = tempfile::tempdir().unwrap();
    let name = long_name();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_property_named(&name, "properties: {a: {type: integer}}"),
    );
    let fields: Vec<String> = (0..30_000).map(|i| format!("u{i}: 0")).collect();
    let path = write(
        dir.path(),
        "unknown.yaml",
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: t}}\nspec:\n  ? {name}\n  : {{{}}}\n",
            fields.join(", ")
        ),
    );
    let (out, status) = check_bounded("short", &["--crds", &crd, &path], SMALL_MIB);
    assert_eq!(status, 1, "{}", &out[..out.len().min(300)]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{path}:1:1: error[findings-limit]: crdlint stopped checking this object: its findings passed 64 MiB (the server would list more)"
        )
    );
    let (summary, errors) = lines[1..].split_last().unwrap();
    // The first fields of the file until the limit, each at its key.
    assert_eq!(errors.len(), 447);
    for (i, line) in errors.iter().enumerate() {
        let column = 6 + fields[..i].iter().map(|f| f.len() + 2).sum::<usize>();
        assert_eq!(
            *line,
            format!("{path}:6:{column}: error[unknown-field]: unknown field \"spec.{name}.u{i}\"")
        );
    }
    assert_eq!(
        *summary,
        "1 file, 1 document (0 CRDs, 1 custom resource): 448 errors, 0 warnings"
    );
}

/// A CRD's warnings were not charged to its findings either: 30,000 unknown formats
/// under a property named with 50,000 characters (a 1 MB CRD) asked for more than
/// 2 GiB. Warnings come after every check, so when they alone pass the limit the
/// verdict is complete: the limit is a warning and the exit status stays 0.
#[test]
fn warnings_under_a_long_path_stop_at_the_findings_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (crd, properties) =
        crd_with_long_named_properties(30_000, |i| format!("f{i}: {{type: string, format: x{i}}}"));
    let path = write(dir.path(), "crd.yaml", crd);
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 0, "{}", &out[..out.len().min(300)]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{path}:1:1: warning[findings-limit]: crdlint stopped listing this object's warnings: its findings passed 64 MiB (the server would list more)"
        )
    );
    let (summary, warnings) = lines[1..].split_last().unwrap();
    // The first formats of the file until the limit, each at its value.
    assert_eq!(warnings.len(), 1333);
    for (i, line) in warnings.iter().enumerate() {
        let column = entry_column(&properties, i) + format!("f{i}: {{type: string, format: ").len();
        assert_eq!(
            *line,
            format!(
                "{path}:22:{column}: warning[schema-unknown-format]: unrecognized format \"x{i}\""
            )
        );
    }
    assert_eq!(
        *summary,
        "1 file, 1 document (1 CRD, 0 custom resources): 0 errors, 1334 warnings"
    );
}

/// The error of a node whose rules have no CEL type was not charged to the CRD's
/// findings, and nodes past the limit were still compiled: 20,000 such nodes under a
/// property named with 50,000 characters asked for more than 2 GiB.
#[test]
fn untyped_rule_nodes_under_a_long_path_stop_at_the_findings_limit() {
    let name = long_name();
    let (crd, properties) = crd_with_long_named_properties(20_000, |i| {
        format!(
            "u{i}: {{x-kubernetes-preserve-unknown-fields: true, x-kubernetes-validations: [{{rule: 'true'}}]}}"
        )
    });
    let column = |i: usize| entry_column(&properties, i) + format!("u{i}: ").len();
    assert_stops_at_the_findings_limit(crd, "cel-untyped-node", |path, i| {
        let list = format!(
            "spec.validation.openAPIV3Schema.properties[spec].properties[{name}].properties[u{i}].x-kubernetes-validations"
        );
        format!(
            "{path}:22:{}: error[cel-untyped-node]: {list}: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations",
            column(i)
        )
    });
}

/// A valid CRD whose nodes with rules sit under a long property name: each node's
/// path was kept three times (the rules' list path, the cost's data path, the set of
/// nodes the server compiles): 20,000 such nodes under a property named with 50,000
/// characters (a 1.6 MB CRD the server accepts) took 3.2 GB. Rule paths are now
/// printed from the node's steps when needed.
#[test]
fn rule_nodes_under_a_long_path_do_not_keep_their_paths() {
    let dir = tempfile::tempdir().unwrap();
    let (crd, _) = crd_with_long_named_properties(20_000, |i| {
        format!(
            "f{i}: {{type: string, maxLength: 10, x-kubernetes-validations: [{{rule: 'self.size() > 1'}}]}}"
        )
    });
    let path = write(dir.path(), "crd.yaml", crd);
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 0, "{}", &out[..out.len().min(300)]);
    assert_eq!(
        out,
        "1 file, 1 document (1 CRD, 0 custom resources): 0 errors, 0 warnings\n"
    );
}

/// The properties `p0`…`p{n-1}` of a flow mapping: strings with a rule each.
fn strings_with_a_rule(n: usize) -> String {
    let entries: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "p{i}: {{type: string, maxLength: 1, x-kubernetes-validations: [{{rule: 'self.size() > 0'}}]}}"
            )
        })
        .collect();
    entries.join(", ")
}

/// A CRD whose `spec.l` is a list of lists `depth` deep (each with `maxItems:
/// max_items`), the innermost items an object whose properties `p0`…`p{n-1}` are
/// strings with a rule; those properties are one flow mapping on the last line.
fn crd_under_nested_lists(depth: usize, max_items: u64, n: usize) -> String {
    let mut body = "              l:\n".to_string();
    for level in 0..depth {
        let indent = " ".repeat(16 + 2 * level);
        body.push_str(&format!(
            "{indent}type: array\n{indent}maxItems: {max_items}\n{indent}items:\n"
        ));
    }
    let indent = " ".repeat(16 + 2 * depth);
    body.push_str(&format!(
        "{indent}type: object\n{indent}properties: {{{}}}\n",
        strings_with_a_rule(n)
    ));
    crd_with_properties(&body)
}

/// The cost of each node with rules kept the lists and maps above it, each with its
/// whole schema and data paths: 4,000 such nodes under 300 nested lists (a 660 KB CRD
/// the server accepts) took 2 GB. Each list is now kept as a number of steps (and
/// shared by siblings), its paths printed when asked for.
#[test]
fn rule_nodes_under_nested_lists_do_not_keep_the_paths_of_their_lists() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "crd.yaml", crd_under_nested_lists(300, 1, 4000));
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    assert_eq!(status, 0, "{}", &out[..out.len().min(300)]);
    assert_eq!(
        out,
        "1 file, 1 document (1 CRD, 0 custom resources): 0 errors, 0 warnings\n"
    );
}

/// The same CRD with lists of 1,000: every rule is over the cost limit, and the help
/// of each error named every list above it by its whole path (640 MB of findings,
/// not charged). Now each list is named after the one before it (`spec.l[*] (maxItems
/// 1000) × [*] (maxItems 1000) × …`) and the help is charged with its error.
#[test]
fn cost_errors_under_nested_lists_name_each_list_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "crd.yaml",
        crd_under_nested_lists(300, 1000, 4000),
    );
    let (out, status) = check_bounded("json", &[&path], SMALL_MIB);
    assert_eq!(status, 1);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let rule_errors: Vec<&serde_json::Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "cel-cost-rule")
        .collect();
    assert_eq!(rule_errors.len(), 4000);
    assert_eq!(diagnostics.len(), 4005);
    let lists = ["[*] (maxItems 1000)"; 299].join(" × ");
    assert_eq!(
        rule_errors[7]["help"],
        format!(
            "estimated cost 18,446,744,073,709,551,615 = 3 per evaluation × cardinality 18,446,744,073,709,551,615 = spec.l[*] (maxItems 1000) × {lists}; the limit is 10,000,000. Run `crdlint cost` for the largest maxItems/maxLength values that fit"
        )
    );
    let items = ".items".repeat(300);
    assert_eq!(
        rule_errors[7]["field"],
        format!(
            "spec.validation.openAPIV3Schema.properties[spec].properties[l]{items}.properties[p7].x-kubernetes-validations[0].rule"
        )
    );
}

/// `crdlint cost` on rules under 300 nested lists of 1,000: each rule's fixes kept
/// their whole paths three times, the program of each rule was found by comparing
/// node paths with every other rule's (16 s, 1.5 GB), and the JSON report was held
/// whole (41 s, 9.5 GB). Fixes are now kept as steps of the rule's node, programs
/// looked up, and the JSON written one rule at a time.
#[test]
fn cost_reports_of_rules_under_nested_lists_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "crd.yaml",
        crd_under_nested_lists(300, 1000, 4000),
    );
    let (out, status) = crdlint_bounded(&["cost", "--color", "never", &path], SMALL_MIB);
    assert_eq!(status, 1);
    let lines: Vec<&str> = out.lines().collect();
    let lists = "[*]".repeat(300);
    let card = format!(
        "spec.l[*] (maxItems 1,000){}",
        " × [*] (maxItems 1,000)".repeat(299)
    );
    let max = "18,446,744,073,709,551,615";
    let column = |i: usize| {
        let head = " ".repeat(16 + 600).len() + "properties: {".len();
        let entry = |j: usize| {
            format!("p{j}: {{type: string, maxLength: 1, x-kubernetes-validations: [{{rule: 'self.size() > 0'}}]}}").len() + 2
        };
        head + (0..i).map(entry).sum::<usize>()
            + format!("p{i}: {{type: string, maxLength: 1, x-kubernetes-validations: [{{rule: ")
                .len()
            + 1
    };
    let bar = "████████████████████";
    assert_eq!(
        lines[..8],
        [
            format!("things.example.com ({path}, document 1) versions v1"),
            format!("  schema total {bar}   >100x  {max} of 100,000,000"),
            format!(
                "  {bar}   >100x  spec.l{lists}.p0  {path}:922:{}",
                column(0)
            ),
            "      rule  self.size() > 0".to_string(),
            format!("      cost  {max} = 3 per call × {max}"),
            format!("      card  {card} = {max}"),
            "      over the limit of 10,000,000 per rule".to_string(),
            "      fix   maxItems: 0 on spec.l (now 1000) → 0".to_string(),
        ]
    );
    assert_eq!(
        lines.last().copied(),
        Some("4000 rules, 4000 over the per-rule limit")
    );
    // The search stops at its budget; every rule is listed.
    assert!(out.contains("crdlint stopped looking for fixes"));
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("      rule  "))
            .count(),
        4000
    );

    // JSON: each rule with its chain (every list by its whole path) and fixes.
    let path = write(
        dir.path(),
        "few.yaml",
        crd_under_nested_lists(300, 1000, 20),
    );
    let (out, status) = crdlint_bounded(&["cost", "-o", "json", &path], SMALL_MIB);
    assert_eq!(status, 1);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules = report["crds"][0]["schemas"][0]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 20);
    let chain = rules[0]["chain"].as_array().unwrap();
    assert_eq!(chain.len(), 300);
    assert_eq!(
        chain[299],
        serde_json::json!({
            "path": format!("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[l]{}", ".items".repeat(299)),
            "data": format!("spec.l{lists}"),
            "keyword": "maxItems",
            "max": 1000,
        })
    );
    let fixes = rules[0]["suggestions"].as_array().unwrap();
    assert_eq!(fixes.len(), 300);
    assert_eq!(
        fixes[299],
        serde_json::json!({
            "path": format!("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[l]{}", ".items".repeat(299)),
            "data": format!("spec.l{}", "[*]".repeat(299)),
            "keyword": "maxItems",
            "current": 1000,
            "value": 0,
            "estimatedCost": 0,
        })
    );
}

/// Under a limit on address space that leaves no room for the workers' large stacks,
/// rayon's global pool (the fallback) could not be made either and rayon panicked
/// ("The global thread pool has not been initialized", `ulimit -v 400000` on two
/// cores). The calling thread is now the only worker; each limit gets the same answer.
#[test]
fn a_limit_on_address_space_that_leaves_no_room_for_workers_is_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        crd_with_properties(
            "              a: {type: integer, x-kubernetes-validations: [{rule: 'self < 5', message: small}]}\n",
        ),
    );
    let cr = write(
        dir.path(),
        "cr.yaml",
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t, namespace: default}\nspec: {a: 7}\n",
    );
    for mib in [300, 400, 450, 600, SMALL_MIB] {
        let (out, status) = crdlint_bounded(&["check", "-o", "short", &crd, &cr], mib);
        assert_eq!(
            (out.as_str(), status),
            (
                format!(
                    "{cr}:4:11: error[cel-rule-failed]: spec.a: Invalid value: 7: small\n\
                     2 files, 2 documents (1 CRD, 1 custom resource): 1 error, 0 warnings\n"
                )
                .as_str(),
                1
            ),
            "ulimit -v {mib} MiB"
        );
    }
}

/// A CRD whose `spec.c` is a chain of objects `depth` deep, each with `default: {}`
/// and a rule; the last has a string `s` whose default fails its rule, and `n`
/// properties with a rule each (one flow mapping on the last line).
fn crd_with_a_default_per_level(depth: usize, n: usize) -> String {
    let mut body = "              c:\n".to_string();
    for level in 0..depth {
        let indent = " ".repeat(16 + 2 * level);
        body.push_str(&format!(
            "{indent}type: object\n{indent}default: {{}}\n{indent}x-kubernetes-validations: [{{rule: 'true'}}]\n{indent}properties:\n{indent} c:\n"
        ));
    }
    let indent = " ".repeat(16 + 2 * depth);
    body.push_str(&format!(
        "{indent}type: object\n{indent}properties: {{s: {{type: string, default: x, x-kubernetes-validations: [{{rule: 'self.size() > 1', message: short}}]}}, {}}}\n",
        strings_with_a_rule(n)
    ));
    crd_with_properties(&body)
}

/// Each default is checked against the rules below it, compiled for it: a default at
/// each of 300 levels over 1,000 rules compiled 300,000 rules and followed each
/// rule's steps from the root (3.9 s, the release build of session 50; 400 levels
/// over 4,000 rules, 26 s). Only the rules of nodes where the default has data are
/// compiled now, and the steps the rules share are followed once (0.12 s).
#[test]
fn a_default_at_each_level_of_a_deep_chain_compiles_only_the_rules_it_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "crd.yaml",
        crd_with_a_default_per_level(300, 1000),
    );
    let (out, status) = check_bounded("short", &[&path], SMALL_MIB);
    let chain = ".properties[c]".repeat(301);
    assert_eq!(
        (out.as_str(), status),
        (
            format!(
                "{path}:1522:657: error[schema-invalid-default]: spec.validation.openAPIV3Schema.properties[spec]{chain}.properties[s].default: Invalid value: \"x\": short\n\
                 1 file, 1 document (1 CRD, 0 custom resources): 1 error, 0 warnings\n"
            )
            .as_str(),
            1
        )
    );
}

/// Rules at cel-go's parser limits for each nesting construct (parentheses, lists,
/// maps, calls, indexes, conditionals, relations, selections, arithmetic, `&&`, `||`,
/// `!`, `-`, macros, methods), each clean, followed by a syntax error (the
/// generated parser recovers from it) and not lexable by the fast path.
fn crds_with_rules_at_the_parser_limits(dir: &std::path::Path) {
    let nest = |kind: &str, n: usize| -> String {
        let open_close = |open: &str, inner: &str, close: &str| {
            format!("{}{inner}{}", open.repeat(n), close.repeat(n))
        };
        match kind {
            "paren" => open_close("(", "self.x", ")") + " == 1",
            "list" => open_close("[", "1", "]") + " != []",
            "map" => open_close("{1:", "1", "}") + " != {}",
            "call" => open_close("size(", "self.s", ")") + " > 0",
            "index" => open_close("self.l[", "0", "]") + " > 0",
            "cond" => open_close("self.x == 1 ? true : (", "true", ")"),
            "rel" => open_close("1 == (", "1", ")"),
            "sel" => format!("self{} == 1", ".x".repeat(n)),
            "plus" => format!("self.x{} > 0", " + 1".repeat(n)),
            "and" => vec!["self.x == 1"; n].join(" && "),
            "or" => vec!["self.x == 1"; n].join(" || "),
            "not" => format!("{}true", "!".repeat(n)),
            "neg" => format!("{}self.x > 0", "-".repeat(n)),
            "macro" => open_close("self.l.all(a, ", "true", ")"),
            "method" => format!("self.s{} != ''", ".lowerAscii()".repeat(n)),
            _ => open_close("(self.x == 1 && ", "true", ")"),
        }
    };
    let kinds = [
        "paren", "list", "map", "call", "index", "cond", "rel", "sel", "plus", "and", "or", "not",
        "neg", "macro", "method", "andparen",
    ];
    for kind in kinds {
        let mut rules = Vec::new();
        for n in [249, 251] {
            let rule = nest(kind, n);
            rules.push(serde_json::json!({"rule": format!("{rule} )")}));
            rules.push(serde_json::json!({"rule": format!("`{rule}")}));
            rules.push(serde_json::json!({ "rule": rule }));
        }
        let crd = serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{kind}s.example.com")},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": format!("{kind}s"), "kind": format!("K{kind}")},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object",
                        "properties": {"x": {"type": "integer"}, "s": {"type": "string", "maxLength": 10},
                            "l": {"type": "array", "maxItems": 3, "items": {"type": "integer"}}},
                        "x-kubernetes-validations": rules}}}}}]}
        });
        write(dir, &format!("{kind}.json"), crd.to_string());
    }
}

/// The workers' stacks (32 MiB reserved in release builds, 256 MiB in debug builds,
/// whose generated parser needs far more) hold the deepest inputs within the limits:
/// rules at the parser's recursion limits (2.6 MiB at most in release builds), and a
/// schema and resource 980 lists deep with rules at every level (2 MiB). Under
/// `ulimit -v 400000`, two 256 MiB worker stacks left too little for the heap.
/// (The test's binary is a debug build in CI: the release stack is tested by
/// `cargo test --release`.)
#[test]
fn the_deepest_inputs_within_the_limits_fit_the_worker_stacks() {
    // Release builds fit in 400 MiB of address space; debug builds' 256 MiB stacks
    // (two workers, and a parser thread each when they cannot start) do not.
    let limit = if cfg!(debug_assertions) {
        SMALL_MIB
    } else {
        400
    };
    let dir = tempfile::tempdir().unwrap();
    crds_with_rules_at_the_parser_limits(dir.path());
    let (out, status) = check_bounded("json", &[dir.path().to_str().unwrap()], limit);
    assert_eq!(status, 1);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    let count = |text: &str| messages.iter().filter(|m| m.contains(text)).count();
    assert_eq!(
        (
            messages.len(),
            count("expression recursion limit exceeded: 250"),
            count("max recursion depth exceeded"),
            count("error recovery token lookahead limit exceeded: 256"),
            count("token recognition error at: '`"),
        ),
        (87, 24, 12, 4, 32)
    );

    let depth = 980;
    let dir = tempfile::tempdir().unwrap();
    let mut crd =
        crd_with_properties("").replace("            type: object\n            properties:\n", "");
    for level in 0..depth {
        let indent = " ".repeat(12 + level);
        crd.push_str(&format!(
            "{indent}type: array\n{indent}maxItems: 1\n{indent}x-kubernetes-validations: [{{rule: 'self.size() <= 1'}}, {{rule: 'self == self'}}, {{rule: '[self, self].all(x, x == self)'}}]\n{indent}items:\n"
        ));
    }
    let indent = " ".repeat(12 + depth);
    crd.push_str(&format!(
        "{indent}type: string\n{indent}maxLength: 5\n{indent}x-kubernetes-validations: [{{rule: 'self.size() > 1'}}]\n"
    ));
    let resource = |name: &str, leaf: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: {name}, namespace: default}}\nspec:\n{}{leaf}\n",
            "- ".repeat(depth)
        )
    };
    let crd = write(dir.path(), "crd.yaml", crd);
    let good = write(dir.path(), "good.yaml", resource("good", "hello"));
    let bad = write(dir.path(), "bad.yaml", resource("bad", "toolongvalue"));
    let old = write(dir.path(), "old.yaml", resource("good", "hellp"));
    let (out, status) = check_bounded(
        "short",
        &["--max-depth", "1000", "--old", &old, &crd, &good, &bad],
        limit,
    );
    let items = "[0]".repeat(depth);
    assert_eq!(
        (out.as_str(), status),
        (
            format!(
                "{bad}:1:1: error[cel-rules-skipped]: <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n\
                 {bad}:5:{}: error[schema-violation]: spec{items}: Too long: may not be more than 5 bytes\n\
                 3 files, 3 documents (1 CRD, 2 custom resources): 2 errors, 0 warnings\n",
                1 + 2 * depth
            )
            .as_str(),
            1
        )
    );
}

/// A CRD whose `spec` is `depth` nested map lists (`maxItems: 1`, key `k`), each item
/// with `self == oldSelf`; the innermost object has `width` such string properties.
/// And a resource following it to the end, whose leaves are `leaf`.
fn transition_rules_down_nested_map_lists(
    depth: usize,
    width: usize,
    leaf: &str,
) -> (String, String) {
    let frozen = "x-kubernetes-validations: [{rule: 'self == oldSelf', message: frozen}]";
    let mut crd =
        crd_with_properties("").replace("            type: object\n            properties:\n", "");
    for level in 0..depth {
        let i = " ".repeat(12 + 3 * level);
        crd.push_str(&format!(
            "{i}type: array\n{i}maxItems: 1\n{i}x-kubernetes-list-type: map\n{i}x-kubernetes-list-map-keys: [k]\n{i}items:\n\
             {i} type: object\n{i} required: [k]\n{i} {frozen}\n{i} properties:\n{i}  k: {{type: string, maxLength: 5}}\n{i}  c:\n"
        ));
    }
    let i = " ".repeat(12 + 3 * depth);
    let leaves: Vec<String> = (0..width)
        .map(|j| format!("p{j}: {{type: string, maxLength: 5, {frozen}}}"))
        .collect();
    crd.push_str(&format!(
        "{i}type: object\n{i}properties: {{{}}}\n",
        leaves.join(", ")
    ));
    let mut resource =
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t, namespace: default}\nspec:\n"
            .to_string();
    for level in 0..depth {
        let i = " ".repeat(2 * level);
        resource.push_str(&format!("{i}- k: a\n{i}  c:\n"));
    }
    let values: Vec<String> = (0..width).map(|j| format!("p{j}: {leaf}")).collect();
    resource.push_str(&format!(
        "{}  {{{}}}\n",
        " ".repeat(2 * depth),
        values.join(", ")
    ));
    (crd, resource)
}

/// `self == oldSelf` at each of 300 nested map-list items over 4,000 leaves, on an
/// update that changes every leaf. Each level's comparison asked, for each element,
/// whether comparing it was an error and then whether it was equal, and each question
/// walked everything below again: 4.7 s for 2,000 leaves, and with 4,000 crdlint's
/// work limit stopped the rules (130 errors and a warning, of 4,300 errors). Both
/// are now answered in one walk.
#[test]
fn transition_rules_down_nested_map_lists_compare_each_value_once() {
    let dir = tempfile::tempdir().unwrap();
    let (crd, new) = transition_rules_down_nested_map_lists(300, 4000, "x");
    let (_, old) = transition_rules_down_nested_map_lists(300, 4000, "z");
    let crd = write(dir.path(), "crd.yaml", crd);
    let new = write(dir.path(), "new.yaml", new);
    let old = write(dir.path(), "old.yaml", old);
    let (out, status) = check_bounded("short", &[&crd, &new, "--old", &old], SMALL_MIB);
    assert_eq!(status, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4301);
    assert_eq!(
        lines[0],
        format!("{new}:5:3: error[cel-rule-failed]: spec[0]: Invalid value: frozen")
    );
    let items = ".c[0]".repeat(299);
    assert_eq!(
        lines[4299],
        format!(
            "{new}:605:39491: error[cel-rule-failed]: spec[0]{items}.c.p3999: Invalid value: \"x\": frozen"
        )
    );
    assert_eq!(
        lines[4300],
        "2 files, 2 documents (1 CRD, 1 custom resource): 4300 errors, 0 warnings"
    );
}
