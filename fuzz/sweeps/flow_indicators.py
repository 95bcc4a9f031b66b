# `:`, `?` and `-` at the start, inside and at the end of tokens in flow collections (where
# go-yaml 2.4, YAML 1.2 and libyaml each read them differently), with blanks, line
# breaks, properties, quotes and nesting around them. One text per shape.
import itertools, sys
w = sys.stdout.buffer
containers = [("x: [", "]"), ("x: {", "}"), ("x: {k: ", "}"), ("x: [[", "]]"),
              ("x: [{", "}]"), ("- [", "]"), ("[", "]\n"), ("{", "}\n")]
tokens = ["a", "a:", ":a", "?a", "a:b", "a?", "?", ":", "a :", "a: ", "? a", "?a:",
          "a:b:", "'a':", '"a":', "&x a:", "*x", "!!str a:", "a\n  b:", "a\n :b", "1:",
          "a~:", "::", "?:", ":?", "a#:", "-a:", "a:-", "-", "- ", "-:", "--", "^", "a -"]
seps = [",", ", ", " ,", "\n  ", ""]
for (pre, post), t1, sep, t2 in itertools.product(containers, tokens, seps, tokens + [""]):
    if not sep and t2:
        continue
    w.write((pre + t1 + sep + t2 + post + "\n").encode() + b"\0")
    w.write((pre + t1 + sep + t2 + post + "\ny: *x\n").encode() + b"\0")
