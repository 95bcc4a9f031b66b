#!/usr/bin/env python3
"""directives.py [N [SEED]]: NUL-separated texts mixing directive lines (valid,
malformed, duplicate, other versions) with content, markers, comments and every line end
(LF, CRLF, lone CR, CR CR LF). Used against kubectl's reader in session 39 (see
docs/design.md, "Directives and separator lines"); through `yaml_sweep` it checks the
loader's invariants."""
import random, sys
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
R = random.Random(SEED)
DIRS = ['%YAML 1.1', '%YAML 1.2', '%YAML 2.0', '%TAG !a! tag:x,2000:', '%TAG ! x', '%TAG !! y', '%FOO bar',
        '%YAML 1.1 x', '%', '%YAML 1.1 # c', '%TAG !a x', '%YAML 01.01', '%YAML 1.1\t', '%TAG !a! %C3%A9']
CONTENT = ['a: 1', 'b: 2', '  c: 3', '- x', 'k: |', '  text', '  %x', 'q: "x', '  y"', 'p: plain', '  more',
           '%YAML 1.1', '[1,', '2]', 'z: {a: 1,', ' b: 2}', 'm:', '  n: 1', '"s"', 'x']
MARK = ['---', '...', '--- a: 1', '---  # c', '--- |']
OTHER = ['', '# c', '  ', '#%YAML 1.1']
ENDS = ['\n'] * 6 + ['\r\n'] * 2 + ['\r'] * 3 + ['\r\r\n']
out = []
for _ in range(N):
    lines = []
    for _ in range(R.randint(2, 8)):
        r = R.random()
        pool = DIRS if r < 0.3 else CONTENT if r < 0.65 else MARK if r < 0.85 else OTHER
        lines.append(R.choice(pool))
    t = ''.join(l + R.choice(ENDS) for l in lines)
    out.append(t)
sys.stdout.buffer.write('\0'.join(out).encode())
