#!/usr/bin/env python3
"""function_length.py - fails when a function in runner/ grows past 150 lines.

Modelled on curl's scripts/top-length, without pmccabe: the script reads
every C and CUDA source under runner/ (*.c, *.h, *.cu, recursively) itself.

What counts as a function and how long it is
--------------------------------------------
A function definition is a `{` at brace depth 0 of the file whose preceding
top-level text (since the last `;` or the last closed top-level block) ends
in `)` and holds no `=` outside parentheses. So a struct, union or enum body
(no `)` before the `{`) and an initializer (`= {`) are not functions, and
`extern "C" {` opens no depth (a CUDA file's functions inside it count). The
function's name is the identifier before the last top-level parenthesised
group of that text (CUDA template argument lists `<...>` removed first),
skipping attribute groups (`__attribute__((...))`, `__declspec`, `alignas`,
`__launch_bounds__`, ...), so `static int` on a line of its own, multi-line
parameter lists and leading macro calls are all understood. A name defined
twice in one file (overloads in CUDA, two #if branches) is judged by its
longest definition where the allow-list is concerned.

Its LENGTH is (line of its closing `}`) - (line of its opening `{`) + 1: both
brace lines count, the signature does not. In perfgate's style the `{` sits
alone on the line after the signature, so a one-line signature puts the name
one line above the `{` and the length is one less than "from the name line to
the `}`"; wrapping the parameter list never changes a length.

Braces are matched by a small lexer, not by column: braces inside comments
(/* */ and //), string and character literals, and preprocessor lines
(including their backslash continuations, so a `#define` holding braces) are
ignored. Of an #if/#ifdef/#ifndef ... #elif/#else ... #endif group only the
first branch is read for braces (the others are skipped, as if not taken),
so a brace opened differently in two branches is counted once; the lines of
the skipped branches still count in the length of the function around them.

The allow-list
--------------
ci/function-length-allow.txt lists the functions that may be over the limit:

    PATH:FUNCTION LINES  # reason

PATH is relative to the repository root, LINES is the length recorded when
the entry was written (over 150), and the reason after `#` is required (the
placeholder `reason needed` that --write-allow writes is refused). Blank
lines and lines starting with `#` are comments. An allowed function may
shrink but not grow: longer than LINES is a violation. A shrunken one gets a
note on stderr saying the entry can be lowered (not a failure: the recorded
number is a ceiling, and a ceiling above the length is still true).

An entry whose function no longer exists at PATH, or is now 150 lines or
fewer, is STALE: it is reported on stderr (FILE:LINE: ...) and fails the
check, so that the list stays a true list of the long functions and a gone
entry cannot quietly let a new function of that name grow.

Output and exit status
----------------------
0: clean. 1: violations, one line each on stdout,
    PATH:LINE: FUNCTION is N lines (limit 150)
    PATH:LINE: FUNCTION is N lines (limit 150), grew past its allow-list entry of M
(LINE is the line of the function's name), and/or stale entries on stderr.
2: usage error, unreadable root, a malformed allow-list line (FILE:LINE:
message on stderr), or a file whose braces do not balance.

Options: --root DIR (the repository root; default: the one holding this
script), --scan DIR (a folder under the root to scan instead of runner/;
repeatable), --allow FILE (default ROOT/ci/function-length-allow.txt),
--top N (first print the N longest functions, marking allowed ones, like
top-length; the check runs as usual after it), --write-allow (print a full
allow-list for today's tree on stdout instead of checking: the existing
comment header, then every function over the limit with its current length,
keeping the reason of the existing entry for the same PATH:FUNCTION, else of
the one entry with the same FUNCTION name (so entries survive a file move;
among several entries of that name, the one whose file name matches), else
writing `# reason needed`; exit 0).

Regenerating after files move:
    python3 ci/function_length.py --write-allow > /tmp/allow.txt
    mv /tmp/allow.txt ci/function-length-allow.txt
then review the diff: --write-allow records today's lengths, so a raised
number is a function that grew, and each `reason needed` wants a reason.

Run: python3 ci/function_length.py (ci/checks.d/function-length.sh runs it
with its tests, ci/test_function_length.py). Python 3 standard library only.
"""

import argparse
import os
import re
import sys

LIMIT = 150
SOURCE_EXTS = (".c", ".h", ".cu")
DEFAULT_SCAN = ("runner",)
ALLOW_NAME = os.path.join("ci", "function-length-allow.txt")
PLACEHOLDER = "reason needed"

# Words that are followed by a parenthesised group but never name a function.
NOT_NAMES = frozenset("""
    if while for switch return sizeof do else case goto
    _Alignof alignof _Alignas alignas _Static_assert static_assert _Generic
    __attribute__ __attribute __declspec __asm__ __asm asm _Pragma
    __typeof__ __typeof typeof __launch_bounds__ __cluster_dims__ __align__
""".split())

ALLOW_RE = re.compile(r"^(\S+):([A-Za-z_]\w*)\s+(\d+)\s+#\s*(.*?)\s*$")
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
DIRECTIVE_RE = re.compile(r"#[ \t]*([A-Za-z_]\w*)")
TEMPLATE_ARGS_RE = re.compile(r"<[^<>(){};]*>")
EXTERN_C_RE = re.compile(r'^\s*extern\s*"[^"]*"\s*$')


class UsageError(Exception):
    """A usage, allow-list or parse error (exit status 2)."""


class Function:
    def __init__(self, path, name, name_line, open_line, close_line):
        self.path = path
        self.name = name
        self.name_line = name_line
        self.open_line = open_line
        self.close_line = close_line

    @property
    def key(self):
        return "%s:%s" % (self.path, self.name)

    @property
    def length(self):
        return self.close_line - self.open_line + 1


def strip_source(text):
    """Returns (code, directives): code is text with comments, string and
    character literals and preprocessor lines replaced by spaces (newlines
    kept, so offsets and line numbers stay); directives maps a line number
    (1-based) to the directive word of the preprocessor line starting there."""
    out = list(text)
    directives = {}
    n = len(text)
    i = 0
    line = 1
    at_line_start = True  # only blanks so far on this line (outside comments)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    def skip_comment(j):
        """j at '/*' or '//'; returns the index after the comment."""
        if text.startswith("/*", j):
            end = text.find("*/", j + 2)
            return n if end < 0 else end + 2
        while j < n and text[j] != "\n":
            if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                j += 2
                continue
            j += 1
        return j

    def skip_literal(j):
        """j at a quote; returns the index after the closing quote (or at the
        newline ending an unterminated literal)."""
        quote = text[j]
        j += 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == quote:
                return j + 1
            if c == "\n":
                return j
            j += 1
        return n

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            at_line_start = True
            i += 1
            continue
        if c in " \t\f\v\r":
            i += 1
            continue
        if text.startswith("/*", i) or text.startswith("//", i):
            j = skip_comment(i)
            line += text.count("\n", i, j)
            blank(i, j)
            i = j
            continue
        if c == "#" and at_line_start:
            start, start_line = i, line
            m = DIRECTIVE_RE.match(text, i)
            directives[start_line] = m.group(1) if m else ""
            j = i + 1
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                elif text.startswith("/*", j) or text.startswith("//", j):
                    j = skip_comment(j)
                elif text[j] in "\"'" and directives[start_line] not in ("error", "warning"):
                    j = skip_literal(j)
                else:
                    j += 1
            line += text.count("\n", start, j)
            blank(start, j)
            i = j
            continue
        at_line_start = False
        if c in "\"'":
            j = skip_literal(i)
            blank(i + 1, max(i + 1, j - 1))
            i = j
            continue
        i += 1
    return "".join(out), directives


def function_name(sig):
    """The function's name in the top-level text before its `{`, or None when
    that text is not a function signature."""
    sig = sig.strip()
    if not sig.endswith(")"):
        return None
    # CUDA C++: drop template argument lists, so `name<T>(` reads `name(`.
    while True:
        shorter = TEMPLATE_ARGS_RE.sub("", sig)
        if shorter == sig:
            break
        sig = shorter
    # Identifiers followed by '(' with the paren depth where they stand.
    depth = 0
    candidates = []  # (depth, name)
    last_ident = None
    i = 0
    while i < len(sig):
        c = sig[i]
        m = IDENT_RE.match(sig, i)
        if m and (i == 0 or not (sig[i - 1].isalnum() or sig[i - 1] == "_")):
            last_ident = m.group(0)
            i = m.end()
            continue
        if c == "(":
            if last_ident is not None:
                candidates.append((depth, last_ident))
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "=" and depth == 0:
            return None
        if not c.isspace():
            last_ident = None
        i += 1
    if depth != 0:
        return None
    for want in range(0, 4):
        names = [name for d, name in candidates if d == want and name not in NOT_NAMES]
        if names:
            return names[-1]
    return None


def scan_file(path, rel):
    """Returns the function definitions of one file, in order."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    code, directives = strip_source(text)
    functions = []
    depth = 0
    extern_c = 0  # open extern "C" { blocks, which do not count as depth
    sig = []  # characters of top-level text since the last boundary
    sig_lines = []  # their line numbers
    current = None  # (name, name_line, open_line) of the function being read
    cond = []  # per open #if: True while in its first branch, False after #elif/#else
    active = True
    line = 1
    line_start = True
    for c in code:
        if line_start:
            word = directives.get(line)
            if word in ("if", "ifdef", "ifndef"):
                cond.append(True)
            elif word in ("elif", "else", "elifdef", "elifndef"):
                if cond:
                    cond[-1] = False
            elif word == "endif":
                if cond:
                    cond.pop()
            active = all(cond)
            line_start = False
        if c == "\n":
            line += 1
            line_start = True
            if depth == 0:
                sig.append(" ")
                sig_lines.append(line)
            continue
        if not active:
            continue
        if depth == 0:
            if c == ";":
                sig, sig_lines = [], []
            elif c == "{" and EXTERN_C_RE.match("".join(sig)):
                extern_c += 1  # extern "C" { ... } is transparent
                sig, sig_lines = [], []
            elif c == "{":
                text = "".join(sig)
                name = function_name(text)
                if name is not None:
                    # The line of the name: its last occurrence before '('.
                    idx = text.rfind(name + "(")
                    if idx < 0:
                        idx = max(text.rfind(name), 0)
                    current = (name, sig_lines[idx] if idx < len(sig_lines) else line, line)
                else:
                    current = None
                depth = 1
            elif c == "}" and extern_c:
                extern_c -= 1
                sig, sig_lines = [], []
            elif c == "}":
                raise UsageError("%s:%d: '}' closes nothing" % (rel, line))
            else:
                sig.append(c)
                sig_lines.append(line)
        else:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    if current is not None:
                        functions.append(Function(rel, current[0], current[1], current[2], line))
                    current = None
                    sig, sig_lines = [], []
    if depth != 0:
        raise UsageError("%s: %d '{' not closed at the end of the file" % (rel, depth))
    return functions


def scan_tree(root, scan_dirs):
    functions = []
    for sub in scan_dirs:
        base = os.path.join(root, sub)
        if not os.path.isdir(base):
            raise UsageError("%s: no such folder" % base)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTS):
                    full = os.path.join(dirpath, name)
                    rel = os.path.relpath(full, root).replace(os.sep, "/")
                    functions.extend(scan_file(full, rel))
    return functions


class Entry:
    def __init__(self, lineno, path, name, lines, reason):
        self.lineno = lineno
        self.path = path
        self.name = name
        self.lines = lines
        self.reason = reason

    @property
    def key(self):
        return "%s:%s" % (self.path, self.name)


def load_allow(path, display, strict=True):
    """Returns (header, entries): the comment lines before the first entry and
    the entries in file order. A missing file is an empty list. With strict,
    the placeholder reason is an error."""
    header, entries, seen = [], [], {}
    if not os.path.exists(path):
        return header, entries
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for lineno, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            if not entries:
                header.append(raw)
            continue
        m = ALLOW_RE.match(s)
        if not m:
            raise UsageError("%s:%d: expected 'PATH:FUNCTION LINES  # reason', got '%s'" % (display, lineno, s))
        epath, name, count, reason = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        if not reason:
            raise UsageError("%s:%d: %s:%s has no reason after '#'" % (display, lineno, epath, name))
        if strict and reason == PLACEHOLDER:
            raise UsageError("%s:%d: %s:%s: write the reason instead of '%s'" % (display, lineno, epath, name, PLACEHOLDER))
        if count <= LIMIT:
            raise UsageError("%s:%d: %s:%s: %d lines is not over the limit of %d; remove the entry"
                             % (display, lineno, epath, name, count, LIMIT))
        if epath.startswith("/") or "\\" in epath:
            raise UsageError("%s:%d: '%s': PATH must be relative to the repository root, with '/'"
                             % (display, lineno, epath))
        e = Entry(lineno, epath, name, count, reason)
        if e.key in seen:
            raise UsageError("%s:%d: %s listed again (first at line %d)" % (display, lineno, e.key, seen[e.key]))
        seen[e.key] = lineno
        entries.append(e)
    return header, entries


def longest_by_key(functions):
    """PATH:FUNCTION -> the longest definition of that name in that file (a
    name defined twice, in two #if branches say, is judged by the longer)."""
    out = {}
    for fn in functions:
        if fn.key not in out or fn.length > out[fn.key].length:
            out[fn.key] = fn
    return out


def check(functions, entries, display):
    """Returns (violations, stale, notes): lines for stdout, stderr, stderr."""
    allow = {e.key: e for e in entries}
    violations = []
    for fn in functions:
        if fn.length <= LIMIT:
            continue
        e = allow.get(fn.key)
        msg = "%s:%d: %s is %d lines (limit %d)" % (fn.path, fn.name_line, fn.name, fn.length, LIMIT)
        if e is None:
            violations.append(msg)
        elif fn.length > e.lines:
            violations.append(msg + ", grew past its allow-list entry of %d" % e.lines)
    by_key = longest_by_key(functions)
    stale, notes = [], []
    for e in entries:
        fn = by_key.get(e.key)
        if fn is None:
            stale.append("%s:%d: stale entry: %s no longer exists; remove the entry (or regenerate with --write-allow)"
                         % (display, e.lineno, e.key))
        elif fn.length <= LIMIT:
            stale.append("%s:%d: stale entry: %s is now %d lines, within the limit of %d; remove the entry"
                         % (display, e.lineno, e.key, fn.length, LIMIT))
        elif fn.length < e.lines:
            notes.append("%s:%d: note: %s shrank to %d lines; the entry can say %d instead of %d"
                         % (display, e.lineno, e.key, fn.length, fn.length, e.lines))
    return violations, stale, notes


def top_table(functions, entries, count):
    allow = {e.key: e for e in entries}
    ranked = sorted(functions, key=lambda f: (-f.length, f.path, f.name_line))
    out = []
    shown_cutoff = False
    for fn in ranked[:count]:
        if not shown_cutoff and fn.length <= LIMIT:
            out.append("")
            out.append("---- threshold: %d ----" % LIMIT)
            out.append("")
            shown_cutoff = True
        e = allow.get(fn.key)
        mark = " [ALLOWED]" if e is not None and fn.length <= e.lines else ""
        out.append("%-5d %s%s" % (fn.length, fn.key, mark))
    if functions:
        out.append("")
        out.append("Average function length: %.2f lines (%d functions)"
                   % (sum(f.length for f in functions) / len(functions), len(functions)))
    return out


def write_allow(functions, header, entries):
    by_key = {e.key: e for e in entries}
    by_name = {}
    for e in entries:
        by_name.setdefault(e.name, []).append(e)
    out = list(header)
    longs = [fn for fn in longest_by_key(functions).values() if fn.length > LIMIT]
    for fn in sorted(longs, key=lambda f: (f.path, f.open_line)):
        e = by_key.get(fn.key)
        if e is None:
            same = by_name.get(fn.name, [])
            if len(same) > 1:  # the same name in several files: match the file name
                same = [x for x in same if os.path.basename(x.path) == os.path.basename(fn.path)]
            e = same[0] if len(same) == 1 else None
        reason = e.reason if e is not None else PLACEHOLDER
        out.append("%s %d  # %s" % (fn.key, fn.length, reason))
    return out


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Fails on functions over %d lines (see the docstring)." % LIMIT)
    ap.add_argument("--root", default=os.path.dirname(here), help="repository root")
    ap.add_argument("--scan", action="append", metavar="DIR",
                    help="folder under the root to scan (repeatable; default: runner)")
    ap.add_argument("--allow", metavar="FILE", help="allow-list (default: ROOT/%s)" % ALLOW_NAME)
    ap.add_argument("--top", type=int, metavar="N", help="print the N longest functions first")
    ap.add_argument("--write-allow", action="store_true", help="print a regenerated allow-list and exit")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if args.top is not None and args.top < 1:
        print("function_length.py: --top needs a positive count", file=sys.stderr)
        return 2
    root = os.path.abspath(args.root)
    allow_path = args.allow or os.path.join(root, ALLOW_NAME)
    display = os.path.relpath(allow_path, root).replace(os.sep, "/") if args.allow is None else args.allow
    try:
        functions = scan_tree(root, args.scan or DEFAULT_SCAN)
        header, entries = load_allow(allow_path, display, strict=not args.write_allow)
    except UsageError as e:
        print("function_length.py: %s" % e, file=sys.stderr)
        return 2
    if args.write_allow:
        for line in write_allow(functions, header, entries):
            print(line)
        return 0
    if args.top is not None:
        for line in top_table(functions, entries, args.top):
            print(line)
        print()
    violations, stale, notes = check(functions, entries, display)
    for line in violations:
        print(line)
    for line in stale + notes:
        print(line, file=sys.stderr)
    if violations or stale:
        if violations:
            print("%d function(s) over %d lines; shorten them (or, with a reason, list them in %s)"
                  % (len(violations), LIMIT, display), file=sys.stderr)
        return 1
    print("function length: %d functions, none over %d lines outside %s" % (len(functions), LIMIT, display))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
