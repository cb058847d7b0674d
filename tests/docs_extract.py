"""The extractor of docs_examples_test.py: the fenced blocks of a Markdown page, the commands and
expected output of its ```console blocks, the docs-test directives, and how output is matched.
The convention is in docs/README.md, "Writing examples"; the test's docstring has the rest.
"""

import re

DIRECTIVE = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([A-Za-z0-9_+.-]*)(.*)$")
KNOWN = {"skip", "fail", "timeout", "serve", "file", "write", "slurm", "as"}


class DocError(Exception):
    """A document that breaks the convention: the message names the file and line."""


class Command:
    def __init__(self, line, text):
        self.line = line      # 1-based line of its `$ `
        self.text = text      # the command, continuation lines joined
        self.expected = []    # expected output lines


class Block:
    def __init__(self, path, line, lang, directives, body):
        self.path = path
        self.line = line            # 1-based line of the opening fence
        self.lang = lang
        self.directives = directives  # list of (name, args, line)
        self.body = body            # list of lines between the fences
        self.commands = []

    def directive(self, name):
        for d, args, _ in self.directives:
            if d == name:
                return args
        return None

    def where(self):
        return f"{self.path}:{self.line}"


def parse_directives(text, path, line):
    out = []
    for part in text.split(" ; "):
        part = part.strip()
        if not part:
            continue
        name, _, args = part.partition(" ")
        if name not in KNOWN:
            raise DocError(f"{path}:{line}: unknown docs-test directive '{name}' "
                           f"(known: {', '.join(sorted(KNOWN))})")
        if name in ("skip",) and not args.strip():
            raise DocError(f"{path}:{line}: 'docs-test: skip' needs a reason")
        if name in ("file", "write", "timeout", "as") and not args.strip():
            raise DocError(f"{path}:{line}: 'docs-test: {name}' needs an argument")
        out.append((name, args.strip(), line))
    return out


def extract(path, text):
    """Returns the fenced blocks of a Markdown text, console blocks split into commands."""
    lines = text.split("\n")
    blocks = []
    pending = []  # directives seen since the last block
    i = 0
    while i < len(lines):
        line = lines[i]
        m = DIRECTIVE.match(line.strip())
        if m:
            pending.extend(parse_directives(m.group(1), path, i + 1))
            i += 1
            continue
        f = FENCE.match(line)
        if not f:
            if line.strip() and pending:
                # A directive binds to the next block only if nothing but blank lines follow.
                raise DocError(f"{path}:{pending[0][2]}: a docs-test directive must come right "
                               f"before a fenced block (line {i + 1} is text)")
            i += 1
            continue
        indent, fence, lang = f.group(1), f.group(2), f.group(3).lower()
        start = i
        body = []
        i += 1
        while i < len(lines):
            close = lines[i].strip()
            if close.startswith(fence[0] * len(fence)) and close.strip(fence[0]) == "":
                break
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        else:
            raise DocError(f"{path}:{start + 1}: the fenced block opened here is never closed")
        block = Block(path, start + 1, lang, pending, body)
        pending = []
        if lang == "console":
            split_commands(block)
        elif any(d[0] in ("fail", "serve", "timeout") for d in block.directives):
            raise DocError(f"{path}:{start + 1}: docs-test directives fail, serve and timeout "
                           f"only apply to ```console blocks")
        blocks.append(block)
        i += 1
    if pending:
        raise DocError(f"{path}:{pending[0][2]}: a docs-test directive with no block after it")
    return blocks


def split_commands(block):
    current = None
    stray = None
    j = 0
    body = block.body
    while j < len(body):
        line = body[j]
        if line.startswith("$ ") or line == "$":
            text = line[2:]
            first = j
            while text.endswith("\\"):
                j += 1
                if j >= len(body):
                    raise DocError(f"{block.path}:{block.line + 1 + first}: the command ends "
                                   f"with a backslash but the block ends")
                text = text + "\n" + body[j]
            current = Command(block.line + 1 + first, text)
            block.commands.append(current)
        elif current is not None:
            current.expected.append(line)
        elif line.strip() and stray is None:
            stray = block.line + 1 + j
        j += 1
    if not block.commands and block.directive("skip") is None:
        raise DocError(f"{block.where()}: a ```console block with no `$ ` command (use ```text "
                       f"for output alone)")
    if stray is not None and block.commands:
        raise DocError(f"{block.path}:{stray}: output before any `$ ` command in a console block")


def normalize(s):
    return " ".join(s.split())


def match_expected(expected, output):
    """Returns None if every expected line appears in order in output, else the first missing."""
    out_lines = [normalize(l) for l in output.split("\n")]
    pos = 0
    for exp in expected:
        e = normalize(exp)
        if not e or e == "...":
            continue
        pattern = re.compile(".*?".join(re.escape(p) for p in e.split("...")))
        k = pos
        while k < len(out_lines) and not pattern.search(out_lines[k]):
            k += 1
        if k == len(out_lines):
            return exp
        pos = k + 1
    return None


def contains_lines(haystack, needle):
    """Whether the lines of `needle` (trailing blank ones dropped) appear in a row in `haystack`."""
    needle = [l.rstrip() for l in needle]
    hay = [l.rstrip() for l in haystack]
    while needle and not needle[-1]:
        needle.pop()
    for k in range(len(hay) - len(needle) + 1):
        if hay[k:k + len(needle)] == needle:
            return True
    return False
