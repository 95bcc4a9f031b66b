# Scalars after node properties, document markers and directives, on the marker's line
# or the next: `--- &a 'x\n y'`, `%YAML 1.1\n--- !!str "x"`, `- !t\n  "a\n  b"`.
import itertools, sys
w = sys.stdout.buffer
heads = ["", "--- ", "---\n", "%YAML 1.1\n--- ", "%TAG !e! tag:e,2000:\n--- ", "\ufeff--- ", "--- #c\n", "...\n--- ", "x\n--- "]
containers = ["", "k: ", "- ", "k:\n  ", "[", "{k: ", "k: [", "- - "]
props = ["", "&a ", "!t ", "!!str ", "&a !t ", "!e!x ", "&a\n  ", "!t\n  ", "&a #c\n  ", "!<tag:x> "]
scalars = ["a", "a\n b", "a\n\n b", "'a\n b'", "'a\n\n  b'", "\"a\\\n b\"", "\"a\n\tb\"", "|\n  a", ">-\n  a\n\n  b", "|2\n   a", "a #c", "'#'", "\"\\x41\\u00e9\""]
tails = ["", "\n", "\n...\n", "\n---\n", " #c\n"]
for h, c, p, s, t in itertools.product(heads, containers, props, scalars, tails):
    close = "]" if c.endswith("[") else ("}" if c.startswith("{") else "")
    for br in ["\n", "\r\n"]:
        text = (h + c + p + s + close + t).replace("\n", br)
        w.write(text.encode() + b"\0")
