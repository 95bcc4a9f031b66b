# Two lines of context above a block scalar header, with lone CR and CRLF line breaks
# mixed in at each break (header_context.py uses LF only), and CR CR LF, one break for
# kubectl, whose line reader removes one CR before each LF.
import itertools, sys
vocab = ["k:", "- k:", "? k", ":", "-", "&a", "!t", "# c", "", "- &a", "k: &a", ": &a", "k: !t # c", "- # c"]
lines = sorted(set(" " * i + v for v in vocab for i in range(4)))
w = sys.stdout.buffer
breaks = ["\n", "\r", "\r\n", "\r\r\n"]
for l1, l2, b1, b2, b3, h, hi, c, ci in itertools.product(
        lines, lines, breaks, breaks, breaks, ["|1", "|2", ">-"], range(3), ["x", " x"], range(4)):
    w.write((l1 + b1 + l2 + b2 + " " * hi + h + b3 + " " * ci + c + "\n").encode() + b"\0")
