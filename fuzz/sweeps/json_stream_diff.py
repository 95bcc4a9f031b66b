#!/usr/bin/env python3
"""Differential of crdlint's loader against Python's JSON decoder on JSON streams.

kubectl decodes a stream that starts with `{` as JSON values, one after another. For each
NUL-separated text on stdin that is such a stream of two or more valid values (Python's
`json` decides), runs crdlint's `yaml_json` example and prints the texts whose documents
are not the values (texts with a duplicate key, which crdlint reports, are left out).

    python3 sweeps/json_streams.py | python3 sweeps/json_stream_diff.py ../target/release/examples/yaml_json
"""
import json, subprocess, sys


def values(text):
    decoder, i, found = json.JSONDecoder(), 0, []
    if text.startswith("\ufeff"):
        i = 1
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i >= len(text):
            return found
        value, i = decoder.raw_decode(text, i)
        found.append(value)


def main():
    texts = sys.stdin.buffer.read().split(b"\0")
    cases = []
    for raw in texts:
        text = raw.decode("utf-8", "replace")
        if not text.lstrip("\ufeff \t\r\n").startswith("{"):
            continue
        try:
            found = values(text)
        except ValueError:
            continue
        if len(found) > 1:
            cases.append((text, found))
    lines = "".join(json.dumps({"text": t}) + "\n" for t, _ in cases).encode()
    out = subprocess.run([sys.argv[1]], input=lines, capture_output=True, check=True)
    # Split on "\n" only: documents may hold U+2028, which str.splitlines() breaks at.
    results = out.stdout.decode().split("\n")
    differ = 0
    for (text, found), line in zip(cases, results):
        result = json.loads(line)
        duplicate = any(e["kind"] == "DuplicateKey" for e in result["errors"])
        if result["docs"] != found and not duplicate:
            differ += 1
            print(json.dumps({"text": text, "crdlint": result, "json": found}))
    print(f"{len(cases)} streams, {differ} differ", file=sys.stderr)


main()
