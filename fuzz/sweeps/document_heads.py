# Top-level scalars after every kind of document head (markers with and without
# content on their line, directives, byte order marks, comments, `...`), with LF, CR
# and CRLF at each break. NUL-separated on stdout.
import itertools, sys
w = sys.stdout.buffer
heads = ["", "---", "--- ", "--- #c", "%YAML 1.2{b}---", "\ufeff", "\ufeff---", "#c{b}---", "...{b}---", "x{b}---", "---{b}...{b}---", "--- !t", "--- &a", "\ufeff%YAML 1.1{b}---", " ---"]
bodies = ["|1{b} x", "|2{b}   x{b}  y", ">-{b} a{b}{b} b", "'a{b} b'", "\"a\\{b} b\"", "a{b} b", "|{b}{b} x", "|+{b} x{b}{b}", "- |1{b}  x", "k: |1{b}  x", "[a,{b} b]"]
tails = ["", "{b}", "{b}...{b}", "{b}---{b}y{b}", "{b}--- |1{b} z{b}"]
breaks = ["\n", "\r", "\r\n", "\r\r\n"]
for h, sep, body, t, b in itertools.product(heads, [" ", "{b}"], bodies, tails, breaks):
    if not h and sep == " ":
        continue
    text = (h + sep + body + t).replace("{b}", b)
    w.write(text.encode() + b"\0")
    b2 = "\n" if b != "\n" else "\r"
    w.write((h + sep + body + t).replace("{b}", b2).replace(b2 + " ", b + " ", 1).encode() + b"\0")
