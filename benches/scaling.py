#!/usr/bin/env python3
"""crdlint's scaling sweep: prints figures, asserts nothing.

    python3 benches/scaling.py [--bin PATH] [--only NAME,NAME] [--scale F] [--list]

Each family generates an input at size n and at 4n (CRDs and resources with many
properties, versions, rules, items, documents, findings...), runs the release binary
on both, and prints wall time, peak RSS and the ratio of the two times. Work that
grows linearly shows a ratio near 4; a ratio above 8 at more than 0.3 s is flagged
`<<<`: something scans a list once per item, or copies a value per finding. Session
47 found and fixed fifteen such paths with it and with the audit it grew from
(enum maps, uniqueItems, stored versions, defaults, ratcheting, cost order, CEL
field lookups...); the figures before and after are in the commits that fixed them.

Needs python3 and /usr/bin/time (GNU). Inputs go to a temporary directory.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.setrecursionlimit(100000)
XV = "x-kubernetes-validations"


def crd(schema, versions=None, extra_spec=None, names=None, group="ex.com", plural="widgets", kind="Widget"):
    if versions is None:
        versions = [{"name": "v1", "served": True, "storage": True,
                     "schema": {"openAPIV3Schema": schema}}]
    spec = {"group": group, "scope": "Namespaced",
            "names": names or {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": kind + "List"},
            "versions": versions}
    if extra_spec:
        spec.update(extra_spec)
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"}, "spec": spec}


def obj(props, **kw):
    s = {"type": "object", "properties": props}
    s.update(kw)
    return s


def root(spec_schema):
    return obj({"spec": spec_schema})


def cr(spec, name="w", kind="Widget", api="ex.com/v1", meta=None, **top):
    m = {"name": name, "namespace": "default"}
    if meta:
        m.update(meta)
    d = {"apiVersion": api, "kind": kind, "metadata": m}
    if spec is not None:
        d["spec"] = spec
    d.update(top)
    return d


def block_chain(depth, leaf_lines):
    """A CRD in block YAML whose spec is a chain of `depth` objects (property `c`)."""
    lines = ["apiVersion: apiextensions.k8s.io/v1", "kind: CustomResourceDefinition",
             "metadata:", " name: widgets.ex.com", "spec:", " group: ex.com",
             " scope: Namespaced", " names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}",
             " versions:", " - name: v1", "   served: true", "   storage: true", "   schema:",
             "    openAPIV3Schema:"]
    ind = 5
    lines += [" " * ind + "type: object", " " * ind + "properties:"]
    ind += 1
    lines.append(" " * ind + "spec:")
    ind += 1
    for _ in range(depth):
        lines += [" " * ind + "type: object", " " * ind + "properties:"]
        ind += 1
        lines.append(" " * ind + "c:")
        ind += 1
    lines += [" " * ind + line for line in leaf_lines]
    return "\n".join(lines) + "\n"


def list_chain(depth, max_items, leaf_lines):
    """A CRD in block YAML whose spec is `depth` nested lists of `max_items` each."""
    lines = block_chain(0, []).splitlines()[:-1]
    ind = 7
    lines.append(" " * (ind - 1) + "spec:")
    for _ in range(depth):
        lines += [" " * ind + "type: array", " " * ind + f"maxItems: {max_items}", " " * ind + "items:"]
        ind += 1
    lines += [" " * ind + line for line in leaf_lines]
    return "\n".join(lines) + "\n"


def crd_with(spec_schema):
    return crd(root(spec_schema))


def nest(depth, value):
    for _ in range(depth):
        value = {"c": value}
    return value


FAM = {}
def fam(f): FAM[f.__name__] = f; return f

# ---------------- CRD families
@fam
def versions_many(n):
    vs = [{"name": f"v{i+1}", "served": True, "storage": i == 0,
           "schema": {"openAPIV3Schema": root(obj({"a": {"type": "string"}}))}} for i in range(n)]
    return {"c.json": crd(None, versions=vs)}, ["check", "c.json"]
@fam
def versions_dup(n):
    vs = [{"name": "v1", "served": True, "storage": True,
           "schema": {"openAPIV3Schema": root(obj({"a": {"type": "string"}}))}} for i in range(n)]
    return {"c.json": crd(None, versions=vs)}, ["check", "c.json"]
@fam
def printer_cols(n):
    cols = [{"name": f"c{i%7}", "type": "string", "jsonPath": f".spec.a{i}"} for i in range(n)]
    vs = [{"name": "v1", "served": True, "storage": True, "additionalPrinterColumns": cols,
           "schema": {"openAPIV3Schema": root(obj({f"a{i}": {"type": "string"} for i in range(n)}))}}]
    return {"c.json": crd(None, versions=vs)}, ["check", "c.json"]
@fam
def selectable(n):
    sf = [{"jsonPath": f".spec.a{i % (n//2+1)}"} for i in range(n)]
    vs = [{"name": "v1", "served": True, "storage": True, "selectableFields": sf,
           "schema": {"openAPIV3Schema": root(obj({f"a{i}": {"type": "string"} for i in range(n)}))}}]
    return {"c.json": crd(None, versions=vs)}, ["check", "c.json"]
@fam
def required_missing(n):
    s = root(obj({f"a{i}": {"type": "string"} for i in range(n)}, required=[f"b{i}" for i in range(n)] + [f"a{i}" for i in range(n)]))
    return {"c.json": crd(s)}, ["check", "c.json"]
@fam
def shortnames(n):
    names = {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList",
             "shortNames": [f"w{i%(n//2+1)}" for i in range(n)], "categories": [f"c{i%(n//2+1)}" for i in range(n)]}
    return {"c.json": crd(root(obj({})), names=names)}, ["check", "c.json"]
@fam
def many_crds_same(n):
    docs = [crd(root(obj({"a": {"type": "string"}}))) for _ in range(n)]
    return {"c.json": "\n".join(json.dumps(d) for d in docs)}, ["check", "c.json"]
@fam
def many_crds_distinct(n):
    docs = [crd(root(obj({"a": {"type": "string"}})), plural=f"w{i}s", kind=f"W{i}") for i in range(n)]
    return {"c.json": "\n".join(json.dumps(d) for d in docs)}, ["check", "c.json"]
@fam
def allof_branches(n):
    br = [obj({f"a{j}": {"minLength": 1} for j in range(0, n, max(1, n//50))}) for i in range(n)]
    s = root(obj({f"a{i}": {"type": "string"} for i in range(n)}, allOf=br))
    return {"c.json": crd(s)}, ["check", "c.json"]
@fam
def allof_unspecified(n):
    br = [obj({f"z{i}": {"minLength": 1}}) for i in range(n)]
    s = root(obj({f"a{i}": {"type": "string"} for i in range(10)}, allOf=br))
    return {"c.json": crd(s)}, ["check", "c.json"]
@fam
def cel_rules_many(n):
    s = root(obj({f"a{i}": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": f"self.size() > {i}"}]} for i in range(n)}))
    return {"c.json": crd(s)}, ["check", "c.json"]
@fam
def cel_rules_one_node(n):
    s = root(obj({"a": {"type": "string", "maxLength": 10}}, **{"x-kubernetes-validations": [{"rule": f"self.a.size() > {i}", "messageExpression": "'x' + self.a"} for i in range(n)]}))
    return {"c.json": crd(s)}, ["check", "c.json"]
@fam
def deep_props(n):
    s = {"type": "string"}
    for i in range(n):
        s = obj({"x": s})
    return {"c.json": crd(root(s))}, ["check", "c.json"]
@fam
def defaults_big(n):
    s = root(obj({"a": {"type": "array", "items": obj({"k": {"type": "string", "minLength": 2}, "v": {"type": "integer"}}), "default": [{"k": "x", "v": i, "u": 1} for i in range(n)]}}))
    return {"c.json": crd(s)}, ["check", "c.json"]
@fam
def defaults_many(n):
    s = root(obj({f"a{i}": {"type": "object", "properties": {"b": {"type":"string","default": "q", "enum": ["q","r"]}}, "default": {}} for i in range(n)}))
    return {"c.json": crd(s)}, ["check", "c.json"]
@fam
def enum_many(n):
    s = root(obj({"a": {"type": "string", "enum": [f"e{i%(n//2+1)}" for i in range(n)]}}))
    return {"c.json": crd(s)}, ["check", "c.json"]
@fam
def conv_versions(n):
    s = root(obj({}))
    ex = {"conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": [f"v{i%(n//2+1)}" for i in range(n)], "clientConfig": {"url": "https://x.example.com/c"}}}}
    return {"c.json": crd(s, extra_spec=ex)}, ["check", "c.json"]
# ---------------- custom resources, dry-run, explain, cost
@fam
def cr_set_scalars(n):
    s = obj({"l": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}})
    return {"c.json": crd_with(s), "r.json": cr({"l": [f"v{i%(n//2+1)}" for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_set_objects(n):
    s = obj({"l": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "items": {"type": "integer"}}}})
    return {"c.json": crd_with(s), "r.json": cr({"l": [[i, i % 7] for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_map_list(n):
    s = obj({"l": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k", "j"],
                   "items": obj({"k": {"type": "string"}, "j": {"type": "integer", "default": 0}}, required=["k"])}})
    return {"c.json": crd_with(s), "r.json": cr({"l": [{"k": f"v{i%(n//2+1)}"} for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_enum_big(n):
    s = obj({"l": {"type": "array", "items": {"type": "string", "enum": [f"e{i}" for i in range(n)]}}})
    return {"c.json": crd_with(s), "r.json": cr({"l": [f"e{n-1}" for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_enum_obj(n):
    s = obj({"l": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "enum": [{"a": i} for i in range(n)]}}})
    return {"c.json": crd_with(s), "r.json": cr({"l": [{"a": n - 1} for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_pattern_items(n):
    s = obj({"l": {"type": "array", "items": {"type": "string", "pattern": "^(a|b)*c[0-9]{1,5}$"}}})
    return {"c.json": crd_with(s), "r.json": cr({"l": ["ab" * 20 + "c1" for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_many_docs(n):
    s = obj({"a": {"type": "string", "x-kubernetes-validations": [{"rule": "self.size() > 1"}]}, "l": {"type":"array","maxItems":10,"items":{"type":"string","maxLength":10},"x-kubernetes-validations": [{"rule": "self.all(x, x.startsWith('a'))"}]}})
    docs = [cr({"a": "x", "l": ["b"]}, name=f"w{i}") for i in range(n)]
    return {"c.json": crd_with(s), "r.json": "\n".join(json.dumps(d) for d in docs)}, ["check", "c.json", "r.json"]
@fam
def cr_many_docs_same_name(n):
    s = obj({"a": {"type": "string"}})
    docs = [cr({"a": "x"}, name="w") for i in range(n)]
    return {"c.json": crd_with(s), "r.json": "\n".join(json.dumps(d) for d in docs)}, ["check", "c.json", "r.json"]
@fam
def cr_unknown(n):
    s = obj({"a": {"type": "string"}})
    return {"c.json": crd_with(s), "r.json": cr({f"u{i}": i for i in range(n)})}, ["check", "c.json", "r.json"]
@fam
def cr_items_cel(n):
    s = obj({"l": {"type": "array", "maxItems": 1000000, "items": obj({"a": {"type": "string", "maxLength": 5}}, **{"x-kubernetes-validations": [{"rule": "self.a != 'zz'", "message": "m"}]})}})
    return {"c.json": crd_with(s), "r.json": cr({"l": [{"a": "zz"} for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_map_addl(n):
    s = obj({"m": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 2}}})
    return {"c.json": crd_with(s), "r.json": cr({"m": {f"k{i}": "toolong" for i in range(n)}})}, ["check", "c.json", "r.json"]
@fam
def cr_labels(n):
    s = obj({})
    return {"c.json": crd_with(s), "r.json": cr({}, meta={"labels": {f"a{i}.ex.com/k": "v" for i in range(n)}, "annotations": {f"a{i}": "v" for i in range(n)}})}, ["check", "c.json", "r.json"]
@fam
def cr_owners(n):
    s = obj({})
    return {"c.json": crd_with(s), "r.json": cr({}, meta={"ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "n", "uid": f"u{i%(n//2+1)}", "controller": True} for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_managed(n):
    s = obj({})
    return {"c.json": crd_with(s), "r.json": cr({}, meta={"managedFields": [{"manager": f"m{i}", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {f"f:{j}": {} for j in range(10)}} for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def cr_transition_map(n):
    s = obj({"l": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                   "items": obj({"k": {"type": "string", "maxLength": 10}, "v": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= oldSelf"}]}}, required=["k"])}})
    old = cr({"l": [{"k": f"k{i}", "v": 5} for i in range(n)]})
    new = cr({"l": [{"k": f"k{i}", "v": 4} for i in reversed(range(n))]})
    return {"c.json": crd_with(s), "r.json": new, "o.json": old}, ["check", "c.json", "r.json", "--old", "o.json"]
@fam
def dryrun_defaults(n):
    s = obj({"l": {"type": "array", "items": obj({"a": {"type": "string", "default": "d"}, "b": {"type": "object", "default": {}, "properties": {"c": {"type": "integer", "default": 1}}}})}})
    return {"c.json": crd_with(s), "r.json": cr({"l": [{"x": 1} for i in range(n)]})}, ["dry-run", "--crds", "c.json", "r.json"]
@fam
def dryrun_diff(n):
    s = obj({"l": {"type": "array", "items": obj({"a": {"type": "string", "default": "d"}})}})
    return {"c.json": crd_with(s), "r.json": cr({"l": [{"x": 1} if i % 2 else {"a": "q"} for i in range(n)]})}, ["dry-run", "--diff", "--crds", "c.json", "r.json"]
@fam
def explain_big(n):
    s = obj({f"a{i}": obj({f"b{j}": {"type": "string", "description": "d" * 50} for j in range(10)}) for i in range(n)})
    return {"c.json": crd_with(s)}, ["explain", "--crds", "c.json", "widgets", "--recursive"]
@fam
def cost_many(n):
    s = obj({f"a{i}": {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [{"rule": "self.all(x, x.size() > 1)"}]} for i in range(n)})
    return {"c.json": crd_with(s)}, ["cost", "c.json"]


# ---------------- found by the session-47 audit
@fam
def cel_required_props(n):
    props = {f"p{i}": {"type": "string", "maxLength": 5} for i in range(n)}
    return {"c.json": crd(root(obj(props, required=list(props), **{XV: [{"rule": "has(self.p0)"}]})))}, ["check", "c.json"]
@fam
def cel_field_selects(n):
    props = {f"p{i}": {"type": "integer"} for i in range(n)}
    rule = "[" + ", ".join(f"self.p{i}" for i in range(n)) + "].all(x, x >= 0)"
    return ({"c.json": crd(root(obj(props, **{XV: [{"rule": rule}]}))), "r.json": cr({f"p{i}": 1 for i in range(n)})},
            ["check", "c.json", "r.json"])
@fam
def cel_map_literal(n):
    rule = "{" + ",".join(f"'k{i}': {i}" for i in range(n)) + "}.size() > self.a"
    return ({"c.json": crd(root(obj({"a": {"type": "integer"}}, **{XV: [{"rule": rule}]}))), "r.json": cr({"a": 0})},
            ["check", "c.json", "r.json"])
@fam
def cel_undefined_fields(n):
    rule = "[" + ", ".join(f"self.x{i}" for i in range(n)) + "].all(x, x >= 0)"
    return {"c.json": crd(root(obj({"a": {"type": "integer"}}, **{XV: [{"rule": rule}]})))}, ["check", "c.json"]
@fam
def cost_search_wide(n):
    props = {f"p{i}": {"type": "array", "items": {"type": "string"}} for i in range(n // 10)}
    rule = "[" + ", ".join(f"self.p{i}.all(x, x != '')" for i in range(n // 10)) + "].all(b, b)"
    return {"c.json": crd(root(obj(props, **{XV: [{"rule": rule}]})))}, ["cost", "c.json"]
def rules_at_depth(n, field):
    """n rules `self.<field> > i` on one node n/100 levels deep (field `a` exists)."""
    leaf = ["type: object", "properties: {a: {type: integer}}",
            "x-kubernetes-validations: [" + ", ".join(f"{{rule: 'self.{field} > {i}'}}" for i in range(n)) + "]"]
    return {"c.yaml": block_chain(max(1, n // 100), leaf)}, ["check", "c.yaml"]
@fam
def cel_rules_deep(n):
    return rules_at_depth(n, "a")
@fam
def cel_compile_errors_deep(n):
    return rules_at_depth(n, "b")
@fam
def crd_type_errors_deep(n):
    leaf = ["type: object", "properties: {" + ", ".join(f"p{i}: {{type: 5}}" for i in range(n)) + "}"]
    return {"c.yaml": block_chain(400, leaf)}, ["check", "c.yaml"]
@fam
def cel_rule_nodes_deep(n):
    leaf = ["type: object", "properties: {" + ", ".join(
        f"p{i}: {{type: string, x-kubernetes-validations: [{{rule: 'self.size() > 1'}}]}}" for i in range(n)) + "}"]
    return {"c.yaml": block_chain(400, leaf)}, ["check", "c.yaml"]
def resource_at_depth(leaf_schema, leaf_value, depth=400):
    """A CRD whose spec is a chain `depth` objects deep and a resource with leaf_value at its end."""
    # Block YAML: a JSON document this deep would pass the flow-nesting limit (255).
    lines = ["apiVersion: ex.com/v1", "kind: Widget", "metadata: {name: w, namespace: default}", "spec:"]
    lines += [" " * (i + 1) + "c:" for i in range(depth)]
    lines += [" " * (depth + 1) + f"{k}: {json.dumps(v)}" for k, v in leaf_value.items()]
    return ({"c.yaml": block_chain(depth, leaf_schema), "r.yaml": "\n".join(lines) + "\n"},
            ["check", "c.yaml", "r.yaml"])
@fam
def cr_item_errors_deep(n):
    return resource_at_depth(["type: object", "properties: {l: {type: array, items: {type: string, maxLength: 1}}}"],
                             {"l": ["xx"] * n})
@fam
def cr_item_rules_deep(n):
    return resource_at_depth(["type: object", "properties: {l: {type: array, maxItems: 1000000, items: "
                              "{type: string, maxLength: 5, x-kubernetes-validations: [{rule: 'self.size() < 2'}]}}}"],
                             {"l": ["xx"] * n})
@fam
def cr_unknown_deep(n):
    return resource_at_depth(["type: object", "properties: {a: {type: string}}"], {f"u{i}": i for i in range(n)})
@fam
def cr_map_errors_deep(n):
    return resource_at_depth(["type: object", "additionalProperties: {type: integer}"], {f"k{i}": "s" for i in range(n)})
def under_long_key(body):
    """A CRD whose spec has one object property named with 50,000 characters."""
    return crd(root(obj({"p" * 50_000: body})))
@fam
def cel_rule_nodes_long_key(n):
    props = {f"f{i}": {"type": "string", "maxLength": 10, XV: [{"rule": "self.size() > 1"}]} for i in range(n)}
    return {"c.json": under_long_key(obj(props))}, ["check", "c.json"]
@fam
def cr_unknown_long_key(n):
    r = cr({"p" * 50_000: {f"u{i}": 0 for i in range(n)}})
    return {"c.json": under_long_key(obj({"a": {"type": "integer"}})), "r.json": r}, ["check", "c.json", "r.json"]
def rule_nodes_under_lists(n, max_items):
    leaf = ["type: object", "properties: {" + ", ".join(
        f"p{i}: {{type: string, maxLength: 1, x-kubernetes-validations: [{{rule: 'self.size() > 0'}}]}}"
        for i in range(n)) + "}"]
    return list_chain(300, max_items, leaf)
@fam
def cel_rule_nodes_nested_lists(n):
    return {"c.yaml": rule_nodes_under_lists(n, 1)}, ["check", "c.yaml"]
@fam
def cost_errors_nested_lists(n):
    return {"c.yaml": rule_nodes_under_lists(n, 1000)}, ["check", "c.yaml"]
@fam
def cost_report_nested_lists(n):
    return {"c.yaml": rule_nodes_under_lists(n, 1000)}, ["cost", "c.yaml"]
@fam
def cost_json_nested_lists(n):
    return {"c.yaml": rule_nodes_under_lists(n, 1000)}, ["cost", "-o", "json", "c.yaml"]
@fam
def cost_search_deep_root_rule(n):
    """`crdlint cost` looking for fixes of 8 rules 400 unbounded lists deep, beside n
    root properties, under a rule at the root (each trial rebuilt the root's type)."""
    lines = ["apiVersion: apiextensions.k8s.io/v1", "kind: CustomResourceDefinition",
             "metadata: {name: widgets.ex.com}", "spec:", " group: ex.com", " scope: Namespaced",
             " names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}",
             " versions:", " - name: v1", "   served: true", "   storage: true", "   schema:",
             "    openAPIV3Schema:", "     type: object",
             "     x-kubernetes-validations: [{rule: 'has(self.spec)'}]", "     properties:"]
    lines += [f"      w{i}: {{type: string}}" for i in range(n)]
    lines.append("      spec:")
    lines += [" " * (7 + i) + "type: array\n" + " " * (7 + i) + "items:" for i in range(400)]
    ind = " " * 407
    lines += [ind + "type: object", ind + "properties: {l: {type: array, items: {type: string}}}",
              ind + "x-kubernetes-validations:"]
    lines += [ind + f"- rule: \"self.l.all(x, x.size() > {r})\"" for r in range(8)]
    return {"c.yaml": "\n".join(lines) + "\n"}, ["cost", "c.yaml"]
def default_chain(depth, n):
    """A chain `depth` objects deep, each with `default: {}` and a rule, over n rules."""
    lines = block_chain(0, []).splitlines()[:-1]
    ind = 7
    lines.append(" " * (ind - 1) + "spec:")
    for _ in range(depth):
        lines += [" " * ind + "type: object", " " * ind + "default: {}",
                  " " * ind + "x-kubernetes-validations: [{rule: 'true'}]", " " * ind + "properties:",
                  " " * (ind + 1) + "c:"]
        ind += 2
    lines += [" " * ind + "type: object", " " * ind + "properties: {" + ", ".join(
        f"p{i}: {{type: string, maxLength: 1, x-kubernetes-validations: [{{rule: 'self.size() > 0'}}]}}"
        for i in range(n)) + "}"]
    return "\n".join(lines) + "\n"
@fam
def defaults_per_level_deep(n):
    return {"c.yaml": default_chain(min(n // 10, 450), 1000)}, ["check", "c.yaml"]
@fam
def defaults_per_level_rules(n):
    return {"c.yaml": default_chain(300, n)}, ["check", "c.yaml"]
@fam
def untyped_docs(n):
    return {"r.yaml": "a: 1\n---\n" * n}, ["check", "r.yaml"]
@fam
def explain_required(n):
    props = {f"p{i}": {"type": "string"} for i in range(n)}
    return {"c.json": crd(root(obj(props, required=list(props))))}, ["explain", "--crds", "c.json", "widgets.spec"]
@fam
def unique_items(n):
    s = obj({"l": {"type": "array", "uniqueItems": True, "items": {"type": "string"}}})
    return {"c.json": crd(root(s)), "r.json": cr({"l": [f"s{i}" for i in range(n)]})}, ["check", "c.json", "r.json"]
@fam
def update_top_level_fields(n):
    c = crd({"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    top = {f"t{i}": i for i in range(n)}
    return ({"c.json": c, "o.json": cr(None, **top), "r.json": cr(None, **top)},
            ["check", "c.json", "r.json", "--old", "o.json"])
@fam
def update_stored_versions(n):
    c = crd(root(obj({"a": {"type": "string"}})))
    o = dict(c)
    o["status"] = {"storedVersions": [f"v{i}" for i in range(n)]}
    return {"c.json": c, "o.json": o}, ["check", "--old", "o.json", "c.json"]
@fam
def update_storage_versions(n):
    n = n // 4
    vs = [{"name": f"v{i}", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}} for i in range(n)]
    o = crd(root(obj({})))
    o["status"] = {"storedVersions": [f"x{i}" for i in range(n)]}
    return {"c.json": crd(None, versions=vs), "o.json": o}, ["check", "--old", "o.json", "c.json"]
@fam
def update_unknown_formats(n):
    new = crd(root(obj({f"p{i}": {"type": "string", "format": f"f{i}"} for i in range(n)})))
    old = crd(root(obj({f"p{i}": {"type": "string", "format": f"g{i}"} for i in range(n)})))
    return {"c.json": new, "o.json": old}, ["check", "--old", "o.json", "c.json"]
@fam
def update_ratchet_deep(n):
    depth, width = max(1, n // 100), n
    leaf = ["type: object", "properties:", " big: {type: object, additionalProperties: {type: string}}",
            " leaf: {type: string, maxLength: 1}"]
    big = {f"k{i}": "v" for i in range(width)}
    return ({"c.yaml": block_chain(depth, leaf), "o.json": cr(nest(depth, {"big": big, "leaf": "xx"})),
             "r.json": cr(nest(depth, {"big": big, "leaf": "yy"}))}, ["check", "c.yaml", "r.json", "--old", "o.json"])

@fam
def suppressions_stacked(n):
    """n stacked own-line suppression comments (each looked down through the others:
    1.99 s at n=20,000 before session 53, 1.16 s after) and n trailing ones on findings."""
    s = obj({"l": {"type": "array", "items": {"type": "string", "maxLength": 1}}})
    lines = ["apiVersion: ex.com/v1", "kind: Widget", "metadata: {name: w, namespace: d}", "spec:", "  l:"]
    lines += [f"  - xx{i} # crdlint-ignore: schema-violation too long on purpose" for i in range(n)]
    lines += [f"  # crdlint-ignore: schema-violation stacked {i}" for i in range(n)]
    return {"c.json": crd_with(s), "r.yaml": "\n".join(lines) + "\n"}, ["check", "--no-config", "c.json", "r.yaml"]
@fam
def exclude_globs(n):
    """n `--exclude` globs sharing the files' extension, over n files: the `ignore` crate
    matches each file against every such glob's regex (n x n; left, see docs/limits.md)."""
    files = {f"f{i}.yaml": cr({"a": "x"}, name=f"w{i}") for i in range(n)}
    files[".crdlint.yaml"] = "exclude: [" + ", ".join(f'"g{i}*.yaml"' for i in range(n)) + "]\n"
    return files, ["check", "."]

@fam
def explain_many_crds(n):
    """`explain` reading n CRDs (each looked up among those read before: 0.86 s at
    n=10,000 before session 53, 0.45 s after)."""
    docs = [crd(root(obj({"a": {"type": "string"}})), plural=f"kind{i}s", kind=f"Kind{i}") for i in range(n)]
    return {"c.yaml": "\n---\n".join(json.dumps(d) for d in docs)}, ["explain", "--crds", "c.yaml", "kind7"]


def write(directory, files):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    total = 0
    for name, content in files.items():
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        total += os.path.getsize(path)
    return total


def measure(binary, directory, args):
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M", binary] + args, cwd=directory,
                       capture_output=True, timeout=900)
    seconds, kib = r.stderr.decode(errors="replace").strip().splitlines()[-1].split()
    return float(seconds), int(kib) // 1024, r.returncode, len(r.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "crdlint"))
    p.add_argument("--only", help="comma-separated family names")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every family's n")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    if a.list:
        print("\n".join(FAM))
        return
    names = a.only.split(",") if a.only else list(FAM)
    work = tempfile.mkdtemp(prefix="crdlint-scaling-")
    try:
        for name in names:
            n0 = max(1, int(N0.get(name, 2000) * a.scale))
            row = []
            for n in (n0, 4 * n0):
                files, args = FAM[name](n)
                size = write(work, files)
                try:
                    seconds, mib, rc, out = measure(a.bin, work, args)
                except subprocess.TimeoutExpired:
                    row.append(f"n={n} timed out")
                    break
                row.append((n, size, seconds, mib, rc, out))
            if len(row) == 2 and not isinstance(row[1], str):
                ratio = row[1][2] / max(row[0][2], 0.01)
                flag = "  <<<" if ratio > 8 and row[1][2] > 0.3 else ""
            else:
                ratio, flag = float("inf"), "  <<<"
            cells = [c if isinstance(c, str) else
                     f"n={c[0]} {c[1] // 1024} KB {c[2]:.2f} s {c[3]} MB exit {c[4]} out {c[5] // 1024} KB"
                     for c in row]
            print(f"{name:26} " + " | ".join(cells) + f"  x{ratio:.1f}{flag}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# Starting sizes where the default (2,000) is too small to time or too large to write.
N0 = {"deep_props": 50, "cost_many": 8000, "cel_rules_many": 8000, "cel_required_props": 10000,
      "cel_field_selects": 8000, "cel_map_literal": 8000, "cel_undefined_fields": 8000,
      "cost_search_wide": 5000, "cel_rules_deep": 10000, "explain_required": 20000,
      "unique_items": 40000, "update_top_level_fields": 30000, "update_stored_versions": 20000,
      "update_storage_versions": 16000, "update_unknown_formats": 10000, "update_ratchet_deep": 10000,
      "cr_enum_obj": 8000, "defaults_many": 8000,
      "cel_compile_errors_deep": 10000, "untyped_docs": 100000,
      "crd_type_errors_deep": 15000, "cel_rule_nodes_deep": 5000,
      "cr_item_errors_deep": 15000, "cr_item_rules_deep": 10000, "cr_unknown_deep": 15000,
      "cr_map_errors_deep": 15000, "cel_rule_nodes_long_key": 5000, "cr_unknown_long_key": 5000,
      "cel_rule_nodes_nested_lists": 1000, "cost_errors_nested_lists": 1000,
      "cost_report_nested_lists": 1000, "cost_json_nested_lists": 100,
      "defaults_per_level_deep": 1000, "defaults_per_level_rules": 1000,
      "cost_search_deep_root_rule": 10000,
      "suppressions_stacked": 5000, "exclude_globs": 1000}

if __name__ == "__main__":
    main()
