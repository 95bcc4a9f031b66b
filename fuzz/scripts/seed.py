#!/usr/bin/env python3
"""Builds the seed corpora in fuzz/corpus/<target>/ (gitignored; never committed) from
testdata/ and, when present, a few files of /work/shared/corpus. Run from fuzz/."""
import glob, hashlib, os, re, sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.environ.get("CRDLINT_CORPUS", os.path.join(REPO, "..", "..", "shared", "corpus"))
if not os.path.isdir(SHARED):
    SHARED = "/work/shared/corpus"
OUT = os.path.join(REPO, "fuzz", "corpus")
MAX_SEED = 64 * 1024  # libFuzzer's -max_len is set above this; small seeds run faster


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    if not data or len(data) > MAX_SEED:
        return
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def files(pattern):
    return sorted(glob.glob(pattern, recursive=True))


testdata = [p for p in files(os.path.join(REPO, "testdata", "**", "*")) if os.path.isfile(p)]
yamlish = [p for p in testdata if p.endswith((".yaml", ".yml", ".json"))]
for p in yamlish:
    data = open(p, "rb").read()
    put("yaml_spans", data)
    if "/crd/" in p or "crd" in os.path.basename(p):
        put("crd_validate", data)
    if "/crs/" in p or "/examples/" in p:
        put("cr_validate", data)

# CRD updates: the old manifest then the new one, as one stream (the target reads the
# first document as the stored CRD).
for case in files(os.path.join(REPO, "testdata", "crd-update*", "*", "old.yaml")):
    new = os.path.join(os.path.dirname(case), "new.yaml")
    put("crd_validate", open(case, "rb").read() + b"\n---\n" + open(new, "rb").read())

shared_crds = files(os.path.join(SHARED, "crds", "**", "*.yaml"))
shared_crs = files(os.path.join(SHARED, "crs", "**", "*.yaml"))
shared_other = files(os.path.join(SHARED, "invalid-*", "**", "*.yaml"))
if not shared_crds:
    print("note: no shared corpus found; seeding from testdata only", file=sys.stderr)
for p in shared_crds:
    put("crd_validate", open(p, "rb").read())
for p in shared_crs[::4] + shared_other:
    data = open(p, "rb").read()
    put("cr_validate", data)
    put("yaml_spans", data)
for p in shared_crds[::10]:
    put("yaml_spans", open(p, "rb").read())

# CEL: every rule, messageExpression and the recorded compile-error cases.
rule_re = re.compile(r"^\s*(?:-\s+)?(rule|messageExpression):\s*(.+)$")
for p in shared_crds + [os.path.join(REPO, "fuzz", "crds", "widgets.yaml")]:
    for line in open(p, encoding="utf-8", errors="replace"):
        m = rule_re.match(line)
        if m:
            v = m.group(2).strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                v = v[1:-1].replace("''", "'") if v[0] == "'" else bytes(v[1:-1], "utf-8").decode("unicode_escape", errors="replace")
            if v not in ("|", ">", "|-", ">-"):
                put("cel_rule", v)
for line in open(os.path.join(REPO, "testdata", "cel", "compile_errors.txt"), encoding="utf-8"):
    if line.startswith("RULE: "):
        put("cel_rule", line[len("RULE: "):].rstrip("\n"))
for rule in [
    "self.replicas > 0", "self.tags.all(t, t.size() < 5)", "self.ports.exists(p, p.port == 80)",
    "self.name.matches('^[a-z]+$')", "quantity(self.size).isLessThan(quantity('1Gi'))",
    "duration(self.timeout) < duration('2h')", "timestamp(self.when) > timestamp('2020-01-01T00:00:00Z')",
    "self.labels.all(k, self.labels[k] != '')", "self.?optional.orValue('') == ''",
    "self.matrix.all(r, r.all(c, c >= 0.0))", "has(self.free.x) && self.free.x.size() > 0",
    "self.embedded.kind == 'ConfigMap'", "self.set.map(x, x * 2).sum() > 0",
    "self == oldSelf", "oldSelf.replicas <= self.replicas",
    "self.tags.map(a, self.tags.map(b, self.tags.map(c, a + b + c))).size() > 0",
    "'x'.split('') .size() > 0", "url('https://a.b/c').getHost() == 'a.b'",
    "isIP('1.2.3.4') && ip('1.2.3.4').family() == 4", "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))",
    "semver('1.2.3').isGreaterThan(semver('1.0.0'))", "format.dns1123Label().validate(self.name).hasValue()",
]:
    put("cel_rule", rule)

# Resources of the fuzz CRD (fuzz/crds/widgets.yaml).
WIDGET = """apiVersion: fuzz.example.com/v1
kind: Widget
metadata:
  name: w-1
  namespace: default
  labels: {app: web}
  finalizers: [fuzz.example.com/cleanup]
spec:
  mode: Manual
  replicas: 3
  minReplicas: 1
  ratio: 1.5
  schedule: "*/5 * * * *"
  name: web
  when: 2024-01-02T03:04:05Z
  timeout: 1h30m
  size: 10Gi
  note: null
  tags: [a, b]
  ports:
  - {name: http, port: 80}
  - {name: http, protocol: UDP, port: 80}
  labels: {tier: front}
  resources: {cpu: 500m, memory: 1Gi}
  template: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {k: v}}
  config: {level: 5, extra: [1, 2]}
  matrix: [[1, 2.5], []]
  oneOf: {a: x}
status:
  replicas: 2
  selector: app=web
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: 2024-01-02T03:04:05Z}
"""
put("cr_validate", WIDGET)
put("cr_validate", WIDGET.replace("fuzz.example.com/v1", "fuzz.example.com/v1beta1"))
put("cr_validate", WIDGET.replace("mode: Manual", "mode: Bogus").replace("replicas: 3", "replicas: -1"))
put("cr_validate", "apiVersion: fuzz.example.com/v1\nkind: Widget\nmetadata: {name: x}\nspec: {}\n")

# CRDs with resources in one stream (crd_cr): each testdata/crs case's CRD with each of
# its resources, and each small corpus CRD with the corpus resources of its kind.
for crd in files(os.path.join(REPO, "testdata", "crs", "*", "crd.yaml")):
    crd_text = open(crd, "rb").read()
    for p in files(os.path.join(os.path.dirname(crd), "*.yaml")):
        if p != crd:
            put("crd_cr", crd_text + b"\n---\n" + open(p, "rb").read())
put("crd_cr", open(os.path.join(REPO, "fuzz", "crds", "widgets.yaml"), "rb").read() + b"\n---\n" + WIDGET.encode())
for example in ("my-crontab.yaml", "invalid-crontab.yaml"):
    put("crd_cr", open(os.path.join(REPO, "testdata", "examples", "crontab-crd.yaml"), "rb").read()
        + b"\n---\n" + open(os.path.join(REPO, "testdata", "examples", example), "rb").read())
kind_re = re.compile(rb"^kind:\s*(\w+)\s*$", re.M)
names_kind_re = re.compile(rb"^\s+names:\s*\n(?:\s+\w+:.*\n|\s+-.*\n)*?\s+kind:\s*(\w+)\s*$", re.M)
crd_by_kind = {}
for p in shared_crds:
    data = open(p, "rb").read()
    if len(data) > MAX_SEED // 2 or data.count(b"\nkind: CustomResourceDefinition") > 1:
        continue
    m = names_kind_re.search(data)
    if m:
        crd_by_kind.setdefault(m.group(1), data)
for p in shared_crs:
    data = open(p, "rb").read()
    for kind in set(kind_re.findall(data)):
        if kind in crd_by_kind:
            put("crd_cr", crd_by_kind[kind] + b"\n---\n" + data)
for target in sorted(os.listdir(OUT)):
    print(target, len(os.listdir(os.path.join(OUT, target))))
