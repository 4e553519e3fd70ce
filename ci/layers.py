#!/usr/bin/env python3
"""layers.py - checks that includes in runner/ and include/perfgate/ point down.

Every file under runner/ (*.c, *.h, *.cu) and include/perfgate/ (*.h) gets a
layer from ci/layers.txt (path glob -> layer name, first match wins). The
check then reads every `#include "..."` and reports:

  * an upward include: a file including a header of a higher layer;
  * an include cycle: a strongly connected set of modules (Tarjan), where a
    module is a source and its header collapsed into one node (runner/x.c and
    runner/x.h are module runner/x; a lone header or a lone source is a module
    of its own). Cycles count within one layer too;
  * a file that no glob maps, so that a new file is placed deliberately;
  * a file directly under runner/ (mapped or not): runner/ holds folders
    only, one concern each, so a path says what a file does;
  * a call across folders to a pg__ function: pg__ names a folder's
    internals (docs/contributing.md, "Names"), so a function defined outside
    runner/base/ (whose pg__ helpers every layer uses) and called from
    another folder is misnamed: it is that folder's interface, pg_.

An include resolves the way the compiler resolves it: first the including
file's folder, then include/, then runner/ (the -I order in CMakeLists.txt).
What resolves nowhere (system headers, the generated perfgate/config.h) is
ignored.

Accepted edges are listed in ci/layers-allow.txt ("FROM -> TO", file paths
relative to the root); an accepted edge is dropped from the graph before both
checks, so it neither counts as upward nor closes a cycle. The goal is an
empty allow-list.

Exit status: 0 clean, 1 violations (one line each on stdout), 2 usage or
map errors. --graph adds a summary of the module graph, --dot prints a
Graphviz graph instead of the violations (exit status as without it).
Python 3 standard library only.
"""

import argparse
import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
# A definition (or declaration) at column 0 of a pg__ function; a use anywhere.
INTERNAL_DEF_RE = re.compile(r'^[a-z][^;(=\n]*?\b(pg__\w+)\(', re.M)
INTERNAL_USE_RE = re.compile(r'\b(pg__\w+)\b')
SCAN_DIRS = (("runner", (".c", ".h", ".cu"), True), ("include/perfgate", (".h",), False))
SEARCH_DIRS = ("include", "runner")


class MapError(Exception):
    """A malformed layer map or allow-list (exit status 2)."""


def glob_to_regex(pattern):
    """Translates a path glob: ** any run of characters across folders, * within
    one folder, ? one character, [...] a class."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                raise MapError("unclosed '[' in glob '%s'" % pattern)
            out.append("[" + pattern[i + 1:end].replace("\\", "\\\\") + "]")
            i = end + 1
            continue
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("^" + "".join(out) + "$")


def load_map(path):
    """Reads the layer map: `layer N NAME` lines declare layers, `GLOB NAME`
    lines map paths. Returns (layers {name: number}, rules [(glob, regex, name)])."""
    layers = {}
    rules = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        raise MapError("cannot read layer map %s: %s" % (path, e.strerror))
    for lineno, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        words = text.split()
        where = "%s:%d" % (path, lineno)
        if words[0] == "layer":
            if len(words) != 3 or not words[1].isdigit():
                raise MapError("%s: expected 'layer NUMBER NAME'" % where)
            if words[2] in layers:
                raise MapError("%s: layer '%s' declared twice" % (where, words[2]))
            layers[words[2]] = int(words[1])
            continue
        if len(words) != 2:
            raise MapError("%s: expected 'GLOB LAYER' or 'layer NUMBER NAME'" % where)
        if words[1] not in layers:
            raise MapError("%s: unknown layer '%s' (declare it with 'layer NUMBER NAME' first)"
                           % (where, words[1]))
        rules.append((words[0], glob_to_regex(words[0]), words[1]))
    if not rules:
        raise MapError("%s: no mappings" % path)
    return layers, rules


def load_allow(path):
    """Reads the allow-list: `FROM -> TO` per line, comments after #.
    A missing file is an empty list. Returns {(from, to): lineno}."""
    allow = {}
    if not os.path.exists(path):
        return allow
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            parts = [p.strip() for p in text.split("->")]
            if len(parts) != 2 or not parts[0] or not parts[1]:
                raise MapError("%s:%d: expected 'FROM -> TO'" % (path, lineno))
            allow[(parts[0], parts[1])] = lineno
    return allow


def scan_files(root):
    """Lists the checked files, relative to root, with forward slashes."""
    files = []
    for sub, exts, recurse in SCAN_DIRS:
        base = os.path.join(root, sub)
        if not os.path.isdir(base):
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            if not recurse:
                dirnames[:] = []
            for name in sorted(filenames):
                if name.endswith(exts):
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    files.append(rel.replace(os.sep, "/"))
    return files


def resolve(root, including, target):
    """Resolves a quoted include like the compiler; None when it is not in the tree."""
    candidates = [os.path.dirname(including)] + list(SEARCH_DIRS)
    for folder in candidates:
        rel = os.path.normpath(os.path.join(folder, target)).replace(os.sep, "/")
        if rel.startswith("../"):
            continue
        if os.path.isfile(os.path.join(root, rel)):
            return rel
    return None


def module_of(path):
    """runner/d/x.c, runner/d/x.h and runner/d/x.cu are module runner/d/x."""
    return os.path.splitext(path)[0]


def tarjan(nodes, succ):
    """Strongly connected components (iterative Tarjan), each sorted."""
    index = {}
    low = {}
    on_stack = set()
    stack = []
    sccs = []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(succ.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(succ.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                sccs.append(sorted(comp))
    return sccs


def shortest_cycle(comp, succ):
    """A shortest cycle through the first module of an SCC, as a module list."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        nxt_queue = []
        for node in queue:
            for nxt in sorted(succ.get(node, ())):
                if nxt not in members:
                    continue
                if nxt == start:
                    path = [node]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path))
                if nxt not in prev:
                    prev[nxt] = node
                    nxt_queue.append(nxt)
        queue = nxt_queue
    return [start]


class Analysis:
    """The include graph of a tree, its layers and its violations."""

    def __init__(self, root, map_path, allow_path):
        self.root = root
        self.layers, self.rules = load_map(map_path)
        self.map_path = map_path
        self.allow = load_allow(allow_path)
        self.allow_used = set()
        self.files = scan_files(root)
        self.layer_of = {}
        self.unmapped = []
        self.loose = [f for f in self.files if f.startswith("runner/") and f.count("/") == 1]
        for f in self.files:
            if f in self.loose:
                continue
            for _glob, regex, name in self.rules:
                if regex.match(f):
                    self.layer_of[f] = name
                    break
            else:
                self.unmapped.append(f)
        # File edges: (from, line, to), after dropping accepted ones.
        self.edges = []
        for f in self.files:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                for lineno, line in enumerate(fh, 1):
                    m = INCLUDE_RE.match(line)
                    if not m:
                        continue
                    to = resolve(root, f, m.group(1))
                    if to is None or to == f:
                        continue
                    if (f, to) in self.allow:
                        self.allow_used.add((f, to))
                        continue
                    self.edges.append((f, lineno, to))
        self.upward = []
        for f, lineno, to in self.edges:
            lf, lt = self.layer_of.get(f), self.layer_of.get(to)
            if lf is None or lt is None:
                continue
            if self.layers[lt] > self.layers[lf]:
                self.upward.append((f, lineno, to))
        # Module graph; each module edge remembers the first file edge behind it.
        self.modules = sorted({module_of(f) for f in self.files})
        self.succ = {}
        self.witness = {}
        for f, lineno, to in self.edges:
            a, b = module_of(f), module_of(to)
            if a == b:
                continue
            self.succ.setdefault(a, set()).add(b)
            self.witness.setdefault((a, b), (f, lineno, to))
        self.cycles = [c for c in tarjan(self.modules, self.succ) if len(c) > 1]
        self.cycles.sort()
        self.foreign_internal = self.find_foreign_internal()

    def find_foreign_internal(self):
        """(file, line, name, home folder) for every use of a pg__ function defined in another folder."""
        texts = {}
        home = {}
        for f in self.files:
            with open(os.path.join(self.root, f), encoding="utf-8", errors="replace") as fh:
                texts[f] = fh.read()
            if f.startswith("runner/") and not f.endswith(".h"):
                for m in INTERNAL_DEF_RE.finditer(texts[f]):
                    home.setdefault(m.group(1), set()).add(os.path.dirname(f))
        out = []
        for f in self.files:
            if not f.startswith("runner/"):
                continue
            folder = os.path.dirname(f)
            seen = set()
            for lineno, line in enumerate(texts[f].splitlines(), 1):
                for m in INTERNAL_USE_RE.finditer(line):
                    name = m.group(1)
                    folders = home.get(name)
                    if not folders or folder in folders or "runner/base" in folders or name in seen:
                        continue
                    seen.add(name)
                    out.append((f, lineno, name, sorted(folders)[0]))
        return out

    def layer_text(self, path):
        name = self.layer_of[path]
        return "layer %d %s" % (self.layers[name], name)

    def violations(self):
        out = []
        for f in self.loose:
            out.append("%s: a file directly under runner/; move it into the folder of its concern" % f)
        for f in self.unmapped:
            out.append("%s: not mapped to a layer; add it to %s" % (f, os.path.relpath(self.map_path, self.root)))
        for f, lineno, name, folder in self.foreign_internal:
            out.append("%s:%d: uses %s, internal to %s/: a function other folders call is %s's interface, "
                       "named pg_" % (f, lineno, name, folder, folder))
        for f, lineno, to in self.upward:
            out.append("%s:%d: includes %s (%s) from %s" % (f, lineno, to, self.layer_text(to), self.layer_text(f)))
        for comp in self.cycles:
            path = shortest_cycle(comp, self.succ)
            steps = []
            for i, a in enumerate(path):
                b = path[(i + 1) % len(path)]
                f, lineno, to = self.witness[(a, b)]
                steps.append("%s:%d -> %s" % (f, lineno, to))
            f0, l0, _ = self.witness[(path[0], path[1 % len(path)])]
            out.append("%s:%d: include cycle between modules %s: %s"
                       % (f0, l0, ", ".join(comp), "; ".join(steps)))
        return out

    def stale_allow(self):
        return sorted((ln, a, b) for (a, b), ln in self.allow.items() if (a, b) not in self.allow_used)

    def graph_summary(self):
        out = []
        module_edges = sum(len(v) for v in self.succ.values())
        by_layer = {}
        for f in self.files:
            if f in self.layer_of:
                by_layer.setdefault(self.layer_of[f], []).append(f)
        out.append("files: %d, modules: %d" % (len(self.files), len(self.modules)))
        out.append("file edges: %d, module edges: %d (accepted by the allow-list: %d)"
                   % (len(self.edges), module_edges, len(self.allow_used)))
        for name, num in sorted(self.layers.items(), key=lambda kv: kv[1]):
            out.append("  layer %d %-10s %3d files" % (num, name, len(by_layer.get(name, []))))
        out.append("unmapped files: %d" % len(self.unmapped))
        for f in self.unmapped:
            out.append("  %s" % f)
        out.append("upward includes: %d" % len(self.upward))
        for f, lineno, to in self.upward:
            out.append("  %s:%d -> %s (%s from %s)" % (f, lineno, to, self.layer_of[to], self.layer_of[f]))
        out.append("cycles: %d" % len(self.cycles))
        for comp in self.cycles:
            out.append("  " + " <-> ".join(shortest_cycle(comp, self.succ)) + "  (SCC: %s)" % ", ".join(comp))
        return out

    def dot(self):
        mod_layer = {}
        for f in self.files:
            if f in self.layer_of:
                m = module_of(f)
                num = self.layers[self.layer_of[f]]
                mod_layer[m] = max(mod_layer.get(m, num), num)
        in_cycle = {m for comp in self.cycles for m in comp}
        comp_of = {m: i for i, comp in enumerate(self.cycles) for m in comp}
        upward_mod = {(module_of(f), module_of(t)) for f, _l, t in self.upward}
        names = {num: name for name, num in self.layers.items()}
        out = ["digraph layers {", "  rankdir=BT;", "  node [shape=box, fontsize=10];"]
        for num in sorted(names, reverse=True):
            mods = [m for m in self.modules if mod_layer.get(m) == num]
            out.append('  subgraph "cluster_%d" { label="%d %s";' % (num, num, names[num]))
            for m in mods:
                style = ', color=red' if m in in_cycle else ''
                out.append('    "%s"%s;' % (m, "" if not style else " [" + style[2:] + "]"))
            out.append("  }")
        for a in sorted(self.succ):
            for b in sorted(self.succ[a]):
                attrs = []
                if (a, b) in upward_mod:
                    attrs.append("color=red")
                    attrs.append("penwidth=2")
                elif a in comp_of and comp_of.get(b) == comp_of[a]:
                    attrs.append("color=orange")
                out.append('  "%s" -> "%s"%s;' % (a, b, " [%s]" % ", ".join(attrs) if attrs else ""))
        out.append("}")
        return out


def main(argv):
    parser = argparse.ArgumentParser(
        description="Check that includes under runner/ and include/perfgate/ point down the layers "
                    "of ci/layers.txt and form no cycles.")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        help="tree to check (default: the repository holding this script)")
    parser.add_argument("--map", help="layer map (default: ROOT/ci/layers.txt)")
    parser.add_argument("--allow", help="accepted edges (default: ROOT/ci/layers-allow.txt)")
    parser.add_argument("--graph", action="store_true", help="also print a summary of the module graph")
    parser.add_argument("--dot", action="store_true", help="print the module graph for Graphviz instead")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "runner")):
        print("layers.py: %s has no runner/ folder" % root, file=sys.stderr)
        return 2
    map_path = args.map or os.path.join(root, "ci", "layers.txt")
    allow_path = args.allow or os.path.join(root, "ci", "layers-allow.txt")
    try:
        a = Analysis(root, map_path, allow_path)
    except MapError as e:
        print("layers.py: %s" % e, file=sys.stderr)
        return 2
    violations = a.violations()
    if args.dot:
        print("\n".join(a.dot()))
        return 1 if violations else 0
    if args.graph:
        print("\n".join(a.graph_summary()))
        if violations:
            print("violations:")
    for line in violations:
        print(line)
    for lineno, frm, to in a.stale_allow():
        print("layers.py: note: %s:%d: accepted edge %s -> %s no longer exists; remove it"
              % (os.path.relpath(allow_path, root), lineno, frm, to), file=sys.stderr)
    if not violations and not args.graph:
        print("layers: %d files in %d modules, %d includes: no upward include, no cycle"
              % (len(a.files), len(a.modules), len(a.edges)))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
