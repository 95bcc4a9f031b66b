#!/usr/bin/env python3
"""Records the reference oracle's answer for custom-resource fixtures.

usage: testdata/crs/record-oracle.py testdata/crs/<case>...

Runs /work/ref/oracle.sh (kubectl-validate built with the Kubernetes 1.35 libraries,
see /work/ref/README.md) on each case's cr.yaml with its crd.yaml, and writes
<case>/oracle.txt: per document (`--- N`), the server's causes as `field: message`,
sorted (the server's order follows Go map order). A document that fails without
causes is written as `status: <message>`. Unknown fields, which kubectl-validate
reports as `Invalid value: value provided for unknown field`, are written the way
crdlint words the server's strict-decoding error: `unknown field "PATH"`.
tests/crs_fixtures.rs compares these facts with expected.txt; any difference must be
listed, with its reason, in <case>/differences.txt.
"""
import json, os, shutil, subprocess, sys, tempfile

UNKNOWN = ": Invalid value: value provided for unknown field"

for case in sys.argv[1:]:
    tmp = tempfile.mkdtemp()
    shutil.copy(os.path.join(case, "crd.yaml"), tmp)
    r = subprocess.run(["/work/ref/oracle.sh", "--crds", tmp, os.path.join(case, "cr.yaml")],
                       capture_output=True, text=True)
    shutil.rmtree(tmp)
    statuses = list(json.loads(r.stdout).values())[0]
    out = ["# /work/ref/oracle.sh (kubectl-validate, Kubernetes 1.35 libraries); do not edit, rerun testdata/crs/record-oracle.py\n"]
    for i, st in enumerate(statuses):
        out.append(f"--- {i}\n")
        if st.get("status") != "Failure":
            continue
        causes = (st.get("details") or {}).get("causes") or []
        lines = []
        if not causes:
            lines.append("status: " + st.get("message", ""))
        for c in causes:
            f, m = c.get("field", ""), c.get("message", "")
            line = (f + ": " if f else "") + m
            if line.endswith(UNKNOWN):
                line = 'unknown field "%s"' % line[: -len(UNKNOWN)]
            lines.append(line)
        out.extend(l + "\n" for l in sorted(lines))
    open(os.path.join(case, "oracle.txt"), "w").write("".join(out))
    print(case, "ok")
