#!/usr/bin/env python3
"""Runs a fuzz corpus through two builds of `crdlint` and prints every unit whose
output (JSON) or exit status differs: for a change meant to keep every verdict (a
faster algorithm, a refactoring), the corpora are thousands of inputs that exercise it.

    python3 fuzz/scripts/diff_builds.py OLD_BIN NEW_BIN cr_validate
    python3 fuzz/scripts/diff_builds.py OLD_BIN NEW_BIN cel_rule [CORPUS_DIR]

`cr_validate` units are checked as resources of `fuzz/crds/widgets.yaml`. A `cel_rule`
unit becomes a rule (and a messageExpression) of the fuzz target's schema
(`src/lib.rs`, `CEL_SCHEMA`), evaluated on two objects as an update: the target's own
object, and one whose maps, set and map list are long enough for the evaluator's
hashed lookups (more than 32 entries, keys of mixed numeric types). Exit status 1 when
any unit differs.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FUZZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cel_schema():
    text = open(os.path.join(FUZZ, "src", "lib.rs")).read()
    m = re.search(r'pub const CEL_SCHEMA: &str = r#"(.*?)"#;', text, re.S)
    return m.group(1)


CEL_CRD = ('{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", '
           '"metadata": {"name": "things.example.com"}, "spec": {"group": "example.com", '
           '"scope": "Namespaced", "names": {"plural": "things", "singular": "thing", '
           '"kind": "Thing", "listKind": "ThingList"}, "versions": [{"name": "v1", '
           '"served": true, "storage": true, "schema": {"openAPIV3Schema": SCHEMA}}]}}')

SMALL = {
    "apiVersion": "example.com/v1", "kind": "Thing",
    "metadata": {"name": "thing", "namespace": "default", "labels": {"app": "x"}},
    "spec": {
        "replicas": 3, "ratio": 0.5, "name": "web-1", "enabled": True,
        "when": "2024-01-02T03:04:05Z", "timeout": "1h30m", "size": "10Gi", "data": "aGVsbG8=",
        "tags": ["a", "bb", "ccc"], "set": [1, 2, 3],
        "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
        "labels": {"a": "1", "b": "2"}, "matrix": [[1.0, 2.0], [3.5]],
        "free": {"x": [1, "two", {"three": None}]},
        "embedded": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
        "optional": None,
    },
}


def big():
    b = json.loads(json.dumps(SMALL))
    b["spec"]["set"] = list(range(1, 45)) + [1.0, 2]
    b["spec"]["labels"] = {**{f"k{i}": str(i) for i in range(40)}, "a": "1", "b": "2", "1": "x"}
    b["spec"]["ports"] = [{"name": f"p{i}", "port": i} for i in range(40)] + [{"name": "http", "port": 80}]
    b["spec"]["free"] = {**{f"f{i}": i for i in range(40)}, "x": [1, "two", {"three": None}], "1": 1.0}
    return b


def run(binary, args):
    try:
        p = subprocess.run([binary, "check", "--no-config", "-o", "json", *args],
                           capture_output=True, timeout=60)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return "timeout", b""


def units(corpus):
    for name in sorted(os.listdir(corpus)):
        try:
            yield name, open(os.path.join(corpus, name), "rb").read()
        except FileNotFoundError:  # a running fuzzer removed it
            continue


def main():
    old, new, target = sys.argv[1:4]
    corpus = sys.argv[4] if len(sys.argv) > 4 else os.path.join(FUZZ, "corpus", target)
    tmp = tempfile.mkdtemp()
    path = lambda n: os.path.join(tmp, n)
    compared = differing = 0
    schema = cel_schema() if target == "cel_rule" else None
    for name, data in units(corpus):
        cases = []
        if target == "cr_validate":
            open(path("u.yaml"), "wb").write(data)
            cases.append(["--crds", os.path.join(FUZZ, "crds", "widgets.yaml"), path("u.yaml")])
        else:
            try:
                rule = json.dumps(data.decode("utf-8"))
            except UnicodeDecodeError:
                continue
            rules = '{"rule": %s}, {"rule": "self.replicas >= 0", "messageExpression": %s}' % (rule, rule)
            open(path("crd.json"), "w").write(CEL_CRD.replace("SCHEMA", schema.replace("RULES", rules)))
            for i, obj in enumerate((SMALL, big())):
                prior = json.loads(json.dumps(obj))
                prior["spec"]["replicas"] = 4
                prior["spec"]["set"].reverse()
                prior["spec"]["ports"].reverse()
                open(path(f"cr{i}.json"), "w").write(json.dumps(obj))
                open(path(f"old{i}.json"), "w").write(json.dumps(prior))
                cases.append([path("crd.json"), path(f"cr{i}.json"), "--old", path(f"old{i}.json")])
        for args in cases:
            compared += 1
            a, b = run(old, args), run(new, args)
            if a != b:
                differing += 1
                print(f"DIFF {name} {' '.join(os.path.basename(x) for x in args)}: "
                      f"exit {a[0]} vs {b[0]}", flush=True)
    shutil.rmtree(tmp)
    print(f"{compared} runs compared, {differing} differ")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
