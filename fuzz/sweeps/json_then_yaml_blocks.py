# YAML after a JSON value on the same line (kubectl's reader starts a YAML stream of its
# own there, so its first line's columns count from the value's end): block scalar
# headers with indentation indicators whose parent collection is on that first line
# (`{...}-` then `|1` on the next line, `{...} k: |2`). One text per shape.
import itertools, sys
w = sys.stdout.buffer
values = ['{"a":1}', '{"c":{"d":"x"}}', ' {"a": "\u00e9"}']
gaps = ["", " ", "  "]
heads = ["-", "- ", "k:", "k: ", "- k:", "- - ", "? ", "-  &a", "k: !!str"]
headers = ["|1", "|2-", ">1+", "|", ">3"]
placements = ["same", "next0", "next1", "next3"]
bodies = ["  x", " x\n  y", "    x\n   y", "   x\n\n    y", "  x\n k2: v"]
breaks = ["\n", "\r", "\r\n"]
for v, g, h, hd, pl, body, br in itertools.product(values, gaps, heads, headers, placements, bodies, breaks):
    if pl == "same":
        if h.endswith(":") or h.endswith("-"):
            head = h + " " + hd
        else:
            head = h + hd
    else:
        head = h + br + " " * int(pl[-1]) + hd
    text = v + g + head + br + body.replace("\n", br) + br
    w.write(text.encode() + b"\0")
