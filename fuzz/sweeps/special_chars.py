# Unusual characters (NEL, line and paragraph separators, byte order marks, tabs, DEL,
# no-break space, astral and combining characters) at every position of short scalars
# of each style, around line breaks and indentation. NUL-separated on stdout.
import itertools, sys
w = sys.stdout.buffer
specials = ["\u0085", "\u2028", "\u2029", "\ufeff", "\t", "\x7f", "\u00a0", "\U0001F600", "e\u0301", "\\", "'", '"', "#", ":", " "]
shapes = [
    ("k: ", ""), ("k: '", "'"), ('k: "', '"'), ("k: |\n  ", ""), ("k: >\n  ", ""),
    ("- ", ""), ("[", "]"), ("k: |2\n   ", ""), ("k:\n  ", ""),
]
bodies = ["a{s}b", "{s}a", "a{s}", "a{s}\n  b", "a\n  {s}b", "a\n{s}  b", "a\n\n  {s}", "{s}\n  a", "a {s} b", "a\n  b{s}"]
for (pre, post), body, s, br in itertools.product(shapes, bodies, specials, ["\n", "\r\n", "\r"]):
    text = (pre + body.format(s=s) + post + "\n")
    if br != "\n":
        text = text.replace("\n", br)
    w.write(text.encode() + b"\0")
    for s2 in specials:
        w.write((pre + body.format(s=s + s2) + post + br).encode() + b"\0")
