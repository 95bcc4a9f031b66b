# Streams of JSON values (one document each for kubectl) and near-JSON texts that are
# YAML: leading blanks or a byte order mark, separators, line breaks, nesting, duplicate
# keys, non-ASCII, a broken value among valid ones. One text per shape.
import itertools, sys
w = sys.stdout.buffer
values = ['{}', '{"a": 1}', '{"a": 1, "a": 2}', '{"a": [1, {"b": "\u00e9\u2028"}]}',
          '{"a":\n  {"b": null}}', '[1, 2]', '"s"', '3', '{"a": "x:y"}', '{a: 1}',
          '{"a" : 1', '{"k": "\\u00e9"}', '{"a": {"b"\n: 1}}', '{"a": [?x]}']
seps = ["", " ", "\n", "\r\n", "\r", "\n\n", " \t\n", "\n---\n", "\n# c\n"]
for p, a, s1, b, s2, c in itertools.product(["", "\ufeff", "\n \n"], values[:9] + ['{"a": 1}'],
                                            seps, values, seps[:4], ["", '{"z": 0}']):
    w.write((p + a + s1 + b + s2 + c + "\n").encode() + b"\0")
