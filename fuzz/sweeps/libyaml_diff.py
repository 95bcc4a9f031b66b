# A differential of crdlint's YAML loader against libyaml, the C library go-yaml (and so
# kubectl) was ported from, through PyYAML's CBaseLoader (no implicit typing: every
# scalar a string).
#
#   python3 sweeps/block_contents.py | python3 sweeps/libyaml_diff.py YAML_JSON > diffs.jsonl
#   python3 sweeps/libyaml_diff.py YAML_JSON --files DIR... > diffs.jsonl
#
# YAML_JSON is the `yaml_json` example of the crdlint crate (`cargo build --release
# --example yaml_json`). Inputs are NUL-separated texts on stdin (the sweep generators'
# output), or with --files the kubectl reader chunks (split at `---` lines) of every
# .yaml/.yml file under the directories. Prints one JSON line per differing text and the
# counts per verdict on stderr: `same`, `both-err`, `value` (both load it, to different
# values), `crdlint-accepts`, `crdlint-rejects`, `skip`.
#
# What libyaml cannot decide is skipped or normalized:
# - generated texts with `---`/`...` lines, tags, merge keys or directives (kubectl
#   splits and treats these itself; the sweeps cover them against go-yaml's rules);
# - documents that are a scalar (no manifest is one; two known differences, fuzz/src/lib.rs);
# - duplicate and non-scalar keys (crdlint refuses both, as kubectl's strict decoding),
#   and duplicate anchors (PyYAML refuses them, go-yaml lets the later one win);
# - scalar types: only strings are compared; crdlint's nulls, booleans and numbers
#   match any plain scalar; plain YAML 1.1 boolean keys (`y`, `on`) read as go-yaml
#   reads them;
# - crdlint's warnings (ignored content, YAML 1.1 line breaks) do not count as refusals.
# Where libyaml and go-yaml differ (colons in flow collections), go-yaml decides: a
# difference found here is a lead, to be checked against go-yaml's scanner.
import json
import os
import subprocess
import sys

import yaml

WARNINGS = ("IgnoredContent", "UnicodeLineBreak")
TRUE = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"}
FALSE = {"n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"}


class Skip(Exception):
    pass


class Loader(yaml.CBaseLoader):
    pass


def construct_mapping(loader, node, deep=False):
    out = {}
    for k, v in node.value:
        if not isinstance(k, yaml.ScalarNode):
            raise Skip()
        # go-yaml resolves plain YAML 1.1 booleans in keys; sigs.k8s.io/yaml prints them.
        key = go_key(k.value) if not k.style else k.value
        if key in out:
            raise Skip()
        out[key] = loader.construct_object(v, deep=True)
    return out


Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)


def libyaml(text):
    """("ok", first document) | ("err", message) | ("skip", None)"""
    try:
        return "ok", next(yaml.load_all(text, Loader=Loader), None)
    except (Skip, RecursionError):
        return "skip", None
    except yaml.composer.ComposerError as e:
        if "found duplicate anchor" in str(e):
            return "skip", None  # PyYAML's rule: go-yaml lets a later anchor win
        return "err", str(e).replace("\n", " | ")
    except yaml.YAMLError as e:
        return "err", str(e).replace("\n", " | ")


def go_key(k):
    return "true" if k in TRUE else "false" if k in FALSE else k


def same(c, p):
    if isinstance(c, dict):
        if not isinstance(p, dict):
            return False
        return set(c) == set(p) and all(same(c[k], p[k]) for k in c)
    if isinstance(c, list):
        return isinstance(p, list) and len(c) == len(p) and all(map(same, c, p))
    if isinstance(c, str):
        return c == p
    return p is None or isinstance(p, str)


def generated(stream):
    for raw in stream.read().split(b"\0"):
        try:
            t = raw.decode()
        except UnicodeDecodeError:
            continue
        lines = t.replace("\r", "\n").split("\n")
        if not t or any(l.startswith(("---", "...")) for l in lines):
            continue
        if "!" in t or "<<" in t or "%" in t:
            continue
        yield t


def chunks(roots):
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith((".yaml", ".yml")):
                    continue
                try:
                    text = open(os.path.join(dirpath, name), encoding="utf-8").read()
                except (OSError, UnicodeDecodeError):
                    continue
                if text.lstrip().startswith("{"):
                    continue  # a JSON stream: kubectl decodes it as JSON
                chunk = []
                for line in text.splitlines(keepends=True):
                    if line.startswith("---") and not line[3:].strip():
                        if chunk:
                            yield "".join(chunk)
                        chunk = []
                    else:
                        chunk.append(line)
                if chunk:
                    yield "".join(chunk)


def main():
    binary = sys.argv[1]
    if "--files" in sys.argv:
        texts = list(chunks(sys.argv[sys.argv.index("--files") + 1 :]))
    else:
        texts = list(generated(sys.stdin.buffer))
    # kubectl's line reader ends the last line; so does crdlint.
    texts = [t if t.endswith("\n") else t + "\n" for t in texts]
    request = "".join(json.dumps({"text": t}) + "\n" for t in texts)
    output = subprocess.run(
        [binary], input=request.encode(), capture_output=True, check=True
    ).stdout.decode()
    # Split at LF only: U+2028 and friends stay inside a line.
    results = output.split("\n")
    counts = {}
    for text, line in zip(texts, results):
        result = json.loads(line)
        errors = [e for e in result["errors"] if e["kind"] not in WARNINGS]
        mine = result["docs"][0] if result["docs"] else None
        kind, theirs = libyaml(text)
        if kind == "ok" and not isinstance(theirs, (dict, list)) and not isinstance(mine, (dict, list)):
            kind = "skip"
        if kind == "skip":
            verdict = "skip"
        elif kind == "ok" and not errors:
            verdict = "same" if same(mine, theirs) else "value"
        elif kind == "err" and errors:
            verdict = "both-err"
        else:
            verdict = "crdlint-accepts" if kind == "err" else "crdlint-rejects"
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict in ("value", "crdlint-accepts", "crdlint-rejects"):
            print(json.dumps({
                "verdict": verdict,
                "text": text,
                "crdlint": mine,
                "crdlint_errors": errors,
                "libyaml": theirs if kind == "ok" else None,
                "libyaml_error": theirs if kind == "err" else None,
            }))
    print(json.dumps(counts), file=sys.stderr)


if __name__ == "__main__":
    main()
