# Multi-line flow scalars (plain, single-, double-quoted) in several containers:
# continuation indentation, blank and whitespace-only lines, trailing blanks, escapes,
# comments, markers, line-break styles. One file per shape.
import itertools, sys
w = sys.stdout.buffer
containers = [("k: ", "", 1), ("- ", "", 1), ("k:\n  ", "", 2), ("[", "]", 1), ("{k: ", "}", 1), ("? ", "\n: v", 1), ("a:\n  b: ", "", 3)]
openers = [("", ""), ("'", "'"), ('"', '"')]
firsts = ["a", "a ", "a\t", "a #c", "a\\", "a''b", "a\\tb", "-a", "a:b", "a,b", "#", "\u00e9\u2028x"]
indents = ["", " ", "  ", "   ", "\t", " \t", "    "]
mids = ["", "b", " ", "\t", "b ", "#c", "b #c", "---", "...", "\\", "\\ b", "''", "- b", ":", "b\\n"]
breaks = ["\n", "\r\n", "\r", "\r\r\n"]
for (pre, post, _), (o, c), f, i1, m1, i2, m2, br in itertools.product(
        containers, openers, firsts, indents, mids, indents[:4], ["", "c", " "], breaks):
    body = o + f + br + i1 + m1 + br + i2 + m2 + c
    text = (pre + body + post + br).replace("\n", br) if br != "\n" else pre + body + post + "\n"
    w.write(text.encode() + b"\0")
