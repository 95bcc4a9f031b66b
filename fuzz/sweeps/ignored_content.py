# Content after a document's implicit end (a line less indented than the root
# collection, kubectl never reads it) right after an open scalar of each style, with
# every line-break style before and after it. NUL-separated on stdout.
import itertools, sys
w = sys.stdout.buffer
roots = ["  a:\n    b: ", "  - b: ", "  a: ", "    - "]
values = ["|-\n       x", "|\n       x\n", ">+\n       x\n\n", "|2\n         x", "'x\n       y'", "x\n       y", "\"x\\\n       y\"", "[x,\n       y]", "{x: y}", "|-\n       x\n       #c"]
breaks = ["\n", "\r", "\r\n", "\n\n", "\r\r", "\n \n", "\r\r\n", "\r---\r"]
ignored = [" -x", "x", " x: y", " -yyyyyyyyyyyyyyyy", "-", " ]", " #c", "\t-x", " 'q", " |", " &a x", " ...", " ---"]
afters = ["", "\n", "\r", "\n         more", "\n---\nk: v\n", "\r      z\r"]
for r, v, b, i, a in itertools.product(roots, values, breaks, ignored, afters):
    w.write((r + v + b + i + a).encode() + b"\0")
