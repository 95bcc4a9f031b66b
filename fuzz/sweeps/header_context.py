# Three lines of context from a larger vocabulary above a block scalar header.
import itertools, sys
vocab = ["k:", "- k:", "? k", ":", "- ", "-", "&a", "!t", "&a !t", "# c", "", "- &a", "k: &a",
         "? ", ": &a", "- - k:", "\"k\":", "'k':", "!t k:", "&a k:", "[a]:", "{a: b}:", "k: !t # c", "- # c"]
lines = sorted(set(" " * i + v for v in vocab for i in range(5)))
w = sys.stdout.buffer
tails = [(" " * hi + h + "\n" + " " * ci + c + "\n\0").encode() for h in ["|1", "|2", ">-"] for hi in range(3) for c in ["x", " x"] for ci in range(4)]
for l1, l2, l3 in itertools.product(lines, lines, lines):
    head = (l1 + "\n" + l2 + "\n" + l3 + "\n").encode()
    for t in tails:
        w.write(head + t)
