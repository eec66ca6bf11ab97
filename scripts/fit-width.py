#!/usr/bin/env python3
"""Fit the Rust sources under the given folders to WIDTH columns where
rustfmt cannot: string literals are continued on the next line (a `\\` at a
space inside the literal; Rust skips the newline and the next line's
leading whitespace, so the string's value is unchanged) and line comments
are re-wrapped at word boundaries (not inside ``` fences or tables).
Run after `cargo fmt`; prints the lines still over WIDTH.

    python3 scripts/fit-width.py src
"""
import os
import sys

WIDTH = 110

# Data tables, one row per line by design and left as they are (the
# architecture test exempts them too): the sentences in both languages and
# the link key registry.
DATA_TABLES = ('src/core/messages.rs', 'src/core/link/keys.rs')


def lex_states(text):
    """For each line, whether it starts inside a normal string literal, and
    for each character whether it lies inside a normal (non-raw) string."""
    inside = []
    i, n = 0, len(text)
    in_str = False
    raw_close = None
    line_start_state = [False]
    while i < n:
        c = text[i]
        if raw_close is not None:
            if text.startswith(raw_close, i):
                i += len(raw_close)
                raw_close = None
                continue
            if c == '\n':
                line_start_state.append(None)  # inside a raw string: leave alone
            i += 1
            continue
        if in_str:
            inside.append(i)
            if c == '\\':
                if i + 1 < n and text[i + 1] == '\n':
                    line_start_state.append(True)
                inside.append(i + 1)
                i += 2
                continue
            if c == '"':
                in_str = False
            elif c == '\n':
                line_start_state.append(True)
            i += 1
            continue
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            k = text.count('\n', i, n if j < 0 else j)
            line_start_state.extend([None] * k)
            i = n if j < 0 else j + 2
            continue
        if c == 'r' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            j = i + 1
            while j < n and text[j] == '#':
                j += 1
            if j < n and text[j] == '"' and (j > i + 1 or True):
                if j == i + 1 or text[i + 1] == '#':
                    raw_close = '"' + '#' * (j - i - 1)
                    i = j + 1
                    continue
        if c == "'":
            # char literal vs lifetime
            if i + 1 < n and text[i + 1] == '\\':
                j = text.find("'", i + 2)
                i = j + 1
                continue
            if i + 2 < n and text[i + 2] == "'":
                i += 3
                continue
        if c == '"':
            in_str = True
            i += 1
            continue
        if c == '\n':
            line_start_state.append(False)
        i += 1
    return set(inside), line_start_state


def split_strings(text):
    inside, _ = lex_states(text)
    out = []
    pos = 0
    for line in text.split('\n'):
        start = pos
        pos += len(line) + 1
        while len(line) > WIDTH:
            indent0 = len(line) - len(line.lstrip(' '))
            cut = None
            for p in range(min(WIDTH - 2, len(line) - 2), 0, -1):
                if p > indent0 + 8 and line[p] == " " and line[p + 1] not in ' \t' and (start + p) in inside and (start + p + 1) in inside and line[p - 1] != '\\':
                    cut = p
                    break
            if cut is None:
                break
            indent = len(line) - len(line.lstrip(' '))
            out.append(line[:cut + 1] + '\\')
            rest = line[cut + 1:]
            start = start + cut + 1 - (indent + 4)
            line = ' ' * (indent + 4) + rest
            # keep `inside` offsets aligned with the shifted rest
            inside = {x for x in inside}
        out.append(line)
    return '\n'.join(out)


def wrap_comments(text):
    out = []
    fence = False
    for line in text.split('\n'):
        s = line.lstrip(' ')
        indent = line[:len(line) - len(s)]
        marker = None
        for m in ('//! ', '/// ', '// '):
            if s.startswith(m):
                marker = m
                break
        if marker is None:
            out.append(line)
            continue
        body = s[len(marker):]
        if body.startswith('```'):
            fence = not fence
        if len(line) <= WIDTH or fence or body.startswith('|') or body.startswith('```'):
            out.append(line)
            continue
        stripped = body.lstrip(' ')
        extra = body[:len(body) - len(stripped)]
        if stripped[:2] in ('- ', '* ') or (stripped[:1].isdigit() and '. ' in stripped[:4]):
            lead = ' ' * (len(extra) + stripped.index(' ') + 1)
        else:
            lead = extra
        first, cont = indent + marker + extra, indent + marker + lead
        cur = first
        for w in stripped.split(' '):
            cand = cur + w if cur in (first, cont) else cur + ' ' + w
            if len(cand) > WIDTH and cur not in (first, cont):
                out.append(cur.rstrip())
                cur = cont + w
            else:
                cur = cand
        out.append(cur.rstrip())
    return '\n'.join(out)


def main():
    roots = sys.argv[1:] or ['src']
    left = []
    for root in roots:
        for d, _, files in os.walk(root):
            for f in sorted(files):
                if not f.endswith('.rs'):
                    continue
                p = os.path.join(d, f)
                if p.replace(os.sep, '/').endswith(DATA_TABLES):
                    continue
                text = open(p, encoding='utf-8').read()
                new = wrap_comments(split_strings(text))
                if new != text:
                    open(p, 'w', encoding='utf-8').write(new)
                for k, l in enumerate(new.split('\n'), 1):
                    if len(l) > WIDTH:
                        left.append(f'{p}:{k}: {len(l)}')
    print('\n'.join(left))
    print(f'{len(left)} lines over {WIDTH}', file=sys.stderr)


if __name__ == '__main__':
    main()
