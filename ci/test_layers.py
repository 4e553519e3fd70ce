#!/usr/bin/env python3
"""test_layers.py - proves that ci/layers.py fails when it should.

Each test builds a small tree in a temporary folder (or copies the real
runner/, include/ and ci/layers*.txt there), plants one problem and runs the
script as CI does. Run: python3 ci/test_layers.py (ci/checks.d/layers.sh runs
it too). Python 3 standard library only.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "layers.py")
REPO = os.path.dirname(HERE)

TINY_MAP = """\
layer 0 base
layer 1 core
layer 4 cli
include/perfgate/*.h  base
runner/base/**        base   # a comment after a rule
runner/stats/**       core
runner/measure/**     core
runner/cli/**         cli
"""

TINY_FILES = {
    "include/perfgate/errors.h": "#ifndef E\n#define E\n#endif\n",
    "runner/base/util.h": '#include "perfgate/errors.h"\n',
    "runner/base/util.c": '#include "base/util.h"\n#include "perfgate/config.h"\n#include <stdio.h>\n',
    "runner/stats/stats.h": '#include "base/util.h"\n',
    "runner/stats/stats.c": '#include "stats/stats.h"\n#include "perfgate/errors.h"\n',
    "runner/measure/measure.h": '#include "stats/stats.h"\n',
    "runner/measure/measure.c": '#include "measure/measure.h"\n',
    "runner/cli/cli.h": '#include "measure/measure.h"\n',
    "runner/cli/main.c": '#include "cli.h"\n#include "base/util.h"\n',
}


def run(root, *args):
    proc = subprocess.run([sys.executable, SCRIPT, "--root", root] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return proc.returncode, proc.stdout, proc.stderr


class Tree:
    """A temporary tree: the tiny one by default."""

    def __init__(self, files=None, layer_map=TINY_MAP, allow=None):
        self.root = tempfile.mkdtemp(prefix="pg-layers-")
        for path, text in (files or TINY_FILES).items():
            self.write(path, text)
        if layer_map is not None:
            self.write("ci/layers.txt", layer_map)
        if allow is not None:
            self.write("ci/layers-allow.txt", allow)

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def append(self, path, text):
        with open(os.path.join(self.root, path), "a", encoding="utf-8") as f:
            f.write(text)

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)


class TinyTree(unittest.TestCase):
    def setUp(self):
        self.tree = Tree()

    def tearDown(self):
        self.tree.cleanup()

    def test_clean_tree_passes(self):
        rc, out, err = run(self.tree.root)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("no upward include, no cycle", out)

    def test_upward_include_fails_naming_the_line(self):
        # Line 3 of runner/stats/stats.c: a core file including the CLI's header.
        self.tree.append("runner/stats/stats.c", '#include "cli/cli.h"\n')
        rc, out, _ = run(self.tree.root)
        self.assertEqual(rc, 1)
        self.assertIn("runner/stats/stats.c:3: includes runner/cli/cli.h (layer 4 cli) from layer 1 core", out)

    def test_cycle_between_two_modules_of_one_layer_fails(self):
        # stats.c -> measure.h, and measure.h -> stats.h already: stats <-> measure.
        self.tree.append("runner/stats/stats.c", '#include "measure/measure.h"\n')
        rc, out, _ = run(self.tree.root)
        self.assertEqual(rc, 1)
        lines = [l for l in out.splitlines() if "include cycle" in l]
        self.assertEqual(len(lines), 1, out)
        self.assertIn("include cycle between modules runner/measure/measure, runner/stats/stats", lines[0])
        self.assertIn("runner/stats/stats.c:3 -> runner/measure/measure.h", lines[0])
        self.assertIn("runner/measure/measure.h:1 -> runner/stats/stats.h", lines[0])

    def test_source_and_header_of_one_module_are_one_node(self):
        # x.c including x.h is no cycle; neither is a header including a lower header.
        rc, out, _ = run(self.tree.root, "--graph")
        self.assertEqual(rc, 0, out)
        self.assertIn("modules: 6", out)
        self.assertIn("cycles: 0", out)

    def test_unmapped_file_fails(self):
        self.tree.write("runner/newthing/newthing.c", '#include "base/util.h"\n')
        rc, out, _ = run(self.tree.root)
        self.assertEqual(rc, 1)
        self.assertIn("runner/newthing/newthing.c: not mapped to a layer; add it to ci/layers.txt", out)

    def test_file_directly_under_runner_fails_even_when_mapped(self):
        # runner/ holds folders only: a loose file is rejected whatever the map says.
        self.tree.write("runner/loose.c", '#include "base/util.h"\n')
        self.tree.write("ci/layers.txt", TINY_MAP + "runner/*.c  base\n")
        rc, out, _ = run(self.tree.root)
        self.assertEqual(rc, 1)
        self.assertIn("runner/loose.c: a file directly under runner/; move it into the folder of its concern", out)
        self.assertNotIn("not mapped", out)
        self.tree.write("ci/layers.txt", TINY_MAP)
        rc, out, _ = run(self.tree.root)
        self.assertEqual(rc, 1)
        self.assertIn("runner/loose.c: a file directly under runner/", out)
        self.assertNotIn("not mapped", out)

    def test_internal_function_called_from_another_folder_fails(self):
        # pg__ is a folder's own; base/'s pg__ helpers are for everyone.
        self.tree.append("runner/stats/stats.c", "int pg__stats_helper(int x)\n{\n    return pg__base_helper(x);\n}\n")
        self.tree.append("runner/base/util.c", "int pg__base_helper(int x)\n{\n    return x;\n}\n")
        rc, out, _ = run(self.tree.root)
        self.assertEqual(rc, 0, out)
        self.tree.append("runner/measure/measure.c", "int f(void)\n{\n    return pg__stats_helper(1);\n}\n")
        rc, out, _ = run(self.tree.root)
        self.assertEqual(rc, 1)
        self.assertIn("runner/measure/measure.c:4: uses pg__stats_helper, internal to runner/stats/", out)

    def test_allow_list_accepts_an_edge_and_notes_stale_ones(self):
        self.tree.append("runner/stats/stats.c", '#include "cli/cli.h"\n')
        self.tree.write("ci/layers-allow.txt",
                        "# reason\nrunner/stats/stats.c -> runner/cli/cli.h\nrunner/base/util.c -> runner/stats/stats.h\n")
        rc, out, err = run(self.tree.root)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("ci/layers-allow.txt:3: accepted edge runner/base/util.c -> runner/stats/stats.h no longer exists",
                      err)

    def test_allowed_edge_breaks_a_cycle(self):
        self.tree.append("runner/stats/stats.c", '#include "measure/measure.h"\n')
        self.tree.write("ci/layers-allow.txt", "runner/stats/stats.c -> runner/measure/measure.h\n")
        rc, out, err = run(self.tree.root)
        self.assertEqual(rc, 0, out + err)

    def test_include_resolves_like_the_compiler(self):
        # Own folder first, then include/, then runner/; what resolves nowhere
        # (perfgate/config.h, <stdio.h>) is no edge.
        rc, out, _ = run(self.tree.root, "--dot")
        self.assertEqual(rc, 0, out)
        self.assertIn('"runner/cli/main" -> "runner/base/util";', out)
        self.assertNotIn("config", out)
        self.tree.write("runner/cli/base/util.h", "\n")
        rc, out, _ = run(self.tree.root, "--dot")
        self.assertEqual(rc, 0, out)
        self.assertIn('"runner/cli/main" -> "runner/cli/base/util";', out)
        self.assertNotIn('"runner/cli/main" -> "runner/base/util";', out)
        self.tree.write("runner/base/util.h", '#include "perfgate/errors.h"\n#include "cli/cli.h"\n')
        rc, out, _ = run(self.tree.root)
        self.assertEqual(rc, 1)
        self.assertIn("runner/base/util.h:2: includes runner/cli/cli.h (layer 4 cli) from layer 0 base", out)

    def test_graph_and_dot(self):
        self.tree.append("runner/stats/stats.c", '#include "cli/cli.h"\n')
        rc, out, _ = run(self.tree.root, "--graph")
        self.assertEqual(rc, 1)
        self.assertIn("upward includes: 1", out)
        self.assertIn("cycles: 1", out)  # stats -> cli/cli -> measure -> stats
        rc, out, _ = run(self.tree.root, "--dot")
        self.assertEqual(rc, 1)
        self.assertTrue(out.startswith("digraph layers {"), out)
        self.assertIn('"runner/stats/stats" -> "runner/cli/cli" [color=red, penwidth=2];', out)

    def test_usage_and_map_errors_exit_2(self):
        self.assertEqual(run(self.tree.root, "--no-such-flag")[0], 2)
        self.tree.write("ci/layers.txt", TINY_MAP + "runner/x.c  nolayer\n")
        rc, _, err = run(self.tree.root)
        self.assertEqual(rc, 2)
        self.assertIn("unknown layer 'nolayer'", err)
        self.tree.write("ci/layers-allow.txt", "runner/a.c runner/b.h\n")
        self.tree.write("ci/layers.txt", TINY_MAP)
        rc, _, err = run(self.tree.root)
        self.assertEqual(rc, 2)
        self.assertIn("expected 'FROM -> TO'", err)
        empty = tempfile.mkdtemp(prefix="pg-layers-")
        try:
            self.assertEqual(run(empty)[0], 2)
        finally:
            shutil.rmtree(empty)


class RealTree(unittest.TestCase):
    """The real runner/ and include/ with the real map and allow-list."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="pg-layers-real-")
        for sub in ("runner", "include"):
            shutil.copytree(os.path.join(REPO, sub), os.path.join(self.root, sub))
        os.makedirs(os.path.join(self.root, "ci"))
        for name in ("layers.txt", "layers-allow.txt"):
            src = os.path.join(REPO, "ci", name)
            if os.path.exists(src):
                shutil.copy(src, os.path.join(self.root, "ci", name))

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def test_real_tree_passes(self):
        rc, out, err = run(self.root)
        self.assertEqual(rc, 0, out + err)

    def test_real_tree_has_no_file_directly_under_runner(self):
        loose = [n for n in os.listdir(os.path.join(REPO, "runner"))
                 if os.path.isfile(os.path.join(REPO, "runner", n)) and n != "CMakeLists.txt"]
        self.assertEqual(loose, [])
        with open(os.path.join(REPO, "ci", "layers-allow.txt"), encoding="utf-8") as f:
            entries = [l for l in f if l.split("#", 1)[0].strip()]
        self.assertEqual(entries, [], "the layering allow-list is empty")

    def test_planted_root_file_fails(self):
        with open(os.path.join(self.root, "runner", "loose.c"), "w", encoding="utf-8") as f:
            f.write('#include "base/util.h"\n')
        rc, out, _ = run(self.root)
        self.assertEqual(rc, 1)
        self.assertIn("runner/loose.c: a file directly under runner/", out)

    def test_planted_upward_include_in_stats_fails(self):
        path = os.path.join(self.root, "runner", "stats", "stats.c")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines(True)
        # Right after the file's first include, so the line number is known.
        at = next(i for i, l in enumerate(lines) if l.startswith("#include")) + 1
        lines.insert(at, '#include "cli/cli.h"\n')
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)
        rc, out, _ = run(self.root)
        self.assertEqual(rc, 1)
        self.assertIn("runner/stats/stats.c:%d: includes runner/cli/cli.h (layer 4 cli) from layer 1 core" % (at + 1),
                      out)


if __name__ == "__main__":
    unittest.main(verbosity=1)
