# Block scalar bodies: every header (style, chomping, indentation indicator) in several
# parents, then three content lines each from a vocabulary of indentations, blank and
# whitespace-only lines, tabs, comment-like text and markers. NUL-separated on stdout.
import itertools, sys
w = sys.stdout.buffer
parents = [("--- ", 0), ("k: ", 0), ("- ", 0), ("- k: ", 2), ("a:\n  k: ", 2), ("? ", 0), ("", 0)]
headers = ["|", ">", "|-", ">+", "|1", "|2-", ">2", "|+1", "|3", "| #c", ">-2 #c"]
line_vocab = ["", " ", "  ", "   ", "\t", "  \t", "x", " x", "  x", "   x", "    x", "  \tx", "  # c", "# c", "  ---", "...", "---", "  x #y", "k: v", " - y"]
for (p, extra), h in itertools.product(parents, headers):
    for l1, l2, l3 in itertools.product(line_vocab, repeat=3):
        pad = " " * extra
        body = "\n".join(pad + l if l else l for l in (l1, l2, l3))
        for br in ("\n", "\r"):
            text = p + h + "\n" + body + "\n"
            if br != "\n":
                text = text.replace("\n", br)
            w.write(text.encode() + b"\0")
