#!/usr/bin/env python3
"""test_function_length.py - proves that ci/function_length.py fails when it should.

Each test builds a small tree in a temporary folder (or copies the real
runner/ and ci/function-length-allow.txt there), plants one long function,
allow-list entry or tricky brace and runs the script as CI does. Run:
python3 ci/test_function_length.py (ci/checks.d/function-length.sh runs it
too). Python 3 standard library only.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "function_length.py")
REPO = os.path.dirname(HERE)
ALLOW = "ci/function-length-allow.txt"


def run(root, *args):
    proc = subprocess.run([sys.executable, SCRIPT, "--root", root] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return proc.returncode, proc.stdout, proc.stderr


def function(name, length, signature=None):
    """A function whose `{` to `}` spans `length` lines, in perfgate's style:
    the signature, then `{` alone at column 0, the body, `}` at column 0."""
    assert length >= 2
    sig = signature if signature is not None else "static int %s(int x)\n" % name
    body = "".join("    x += %d;\n" % i for i in range(length - 3)) + "    return x;\n"
    return sig + "{\n" + body + "}\n"


class Tree:
    def __init__(self, files, allow=None):
        self.root = tempfile.mkdtemp(prefix="pg-fnlen-")
        for path, text in files.items():
            self.write(path, text)
        if allow is not None:
            self.write(ALLOW, allow)

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)


class TinyTree(unittest.TestCase):
    def setUp(self):
        self.trees = []

    def tree(self, files, allow=None):
        t = Tree(files, allow)
        self.trees.append(t)
        return t

    def tearDown(self):
        for t in self.trees:
            t.cleanup()

    def test_151_lines_fail_150_pass(self):
        head = "#include <stdio.h>\n\n"  # the signature of `big` is on line 3
        t = self.tree({"runner/a.c": head + function("big", 151),
                       "runner/sub/b.h": function("fine", 150)})
        rc, out, err = run(t.root)
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(out.splitlines(), ["runner/a.c:3: big is 151 lines (limit 150)"])
        t = self.tree({"runner/a.c": head + function("big", 150), "runner/k.cu": function("kern", 150)})
        rc, out, err = run(t.root)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("none over 150 lines", out)

    def test_sources_found_recursively_by_extension(self):
        t = self.tree({"runner/deep/er/k.cu": function("kern", 151), "runner/x.h": function("inl", 152),
                       "runner/notes.txt": function("text", 300), "tests/t.c": function("outside", 300)})
        rc, out, _ = run(t.root)
        self.assertEqual(rc, 1)
        self.assertEqual(sorted(out.splitlines()), ["runner/deep/er/k.cu:1: kern is 151 lines (limit 150)",
                                                    "runner/x.h:1: inl is 152 lines (limit 150)"])
        rc, out, _ = run(t.root, "--scan", "tests")
        self.assertEqual(out.splitlines(), ["tests/t.c:1: outside is 300 lines (limit 150)"])

    def test_multi_line_static_signature(self):
        sig = "static const char *\nlong_name(int a,\n          const char *b)\n"
        t = self.tree({"runner/a.c": "/* x */\n" + function("long_name", 160, sig)})
        rc, out, _ = run(t.root)
        self.assertEqual(rc, 1)
        # The name is on line 3; the wrapped parameters do not count.
        self.assertEqual(out.splitlines(), ["runner/a.c:3: long_name is 160 lines (limit 150)"])
        # A leading macro call and attributes are not the name.
        sig = "PG_FORMAT(1, 2) static __attribute__((noinline)) int\nreal_name(const char *f, ...)\n"
        t = self.tree({"runner/a.c": function("real_name", 151, sig)})
        rc, out, _ = run(t.root)
        self.assertEqual(out.splitlines(), ["runner/a.c:2: real_name is 151 lines (limit 150)"])

    def test_allow_listed_function_passes_and_may_shrink(self):
        files = {"runner/a.c": function("big", 200)}
        t = self.tree(files, "# header\nrunner/a.c:big 200  # one option table\n")
        rc, out, err = run(t.root)
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(err, "")
        t = self.tree({"runner/a.c": function("big", 180)}, "runner/a.c:big 200  # one option table\n")
        rc, out, err = run(t.root)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("ci/function-length-allow.txt:1: note: runner/a.c:big shrank to 180 lines", err)

    def test_allow_listed_function_that_grew_fails(self):
        t = self.tree({"runner/a.c": function("big", 201)}, "runner/a.c:big 200  # one option table\n")
        rc, out, _ = run(t.root)
        self.assertEqual(rc, 1)
        self.assertEqual(out.splitlines(),
                         ["runner/a.c:1: big is 201 lines (limit 150), grew past its allow-list entry of 200"])

    def test_allow_list_entry_is_per_path(self):
        t = self.tree({"runner/a.c": function("big", 160), "runner/b.c": function("big", 160)},
                      "runner/a.c:big 160  # reason\n")
        rc, out, _ = run(t.root)
        self.assertEqual(rc, 1)
        self.assertEqual(out.splitlines(), ["runner/b.c:1: big is 160 lines (limit 150)"])

    def test_braces_in_strings_comments_and_preprocessor_lines(self):
        tricky = (
            "#define OPEN {\n"                        # 1
            "#define LONG_MACRO(x) do { \\\n"        # 2
            "        x; } } }\n"                      # 3
            "static const char *tbl[] = {\"}\", \"{\"};\n"  # 4
            "struct s {\n"                            # 5
            "    int a;\n"                            # 6
            "};\n"                                    # 7
            "/* } a comment { at column 0\n"          # 8
            "}\n"                                     # 9
            "{ */\n"                                  # 10
            "int\n"                                   # 11
            "tricky(void)\n"                          # 12
            "{\n"                                     # 13: length counts from here
            "    const char *s = \"}\\\"{\";  // }\n"  # 14
            "    char c = '}', d = '\\'', e = '{';\n"  # 15
            "#if defined(A)\n"                        # 16
            "    if (c) {\n"                          # 17
            "#else\n"                                 # 18
            "    if (d) {\n"                          # 19: skipped branch
            "#endif\n"                                # 20
            "        e = 1;\n"                        # 21
            "    }\n"                                 # 22
            "    /* { */ return s[0] + c + d + e;\n"  # 23
            "}\n"                                     # 24: to here, 12 lines
            "int after(void)\n"                       # 25
            "{\n"                                     # 26
            "    return '{';\n"                       # 27
            "}\n")                                    # 28
        t = self.tree({"runner/t.c": tricky})
        rc, out, err = run(t.root, "--top", "5")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("12    runner/t.c:tricky\n", out)
        self.assertIn("3     runner/t.c:after\n", out)
        self.assertIn("(2 functions)", out)  # the struct and the initializer are none
        # The same function made long: still measured from its own `{`.
        long_tricky = tricky.replace("        e = 1;\n", "        e = 1;\n" * 140)
        t = self.tree({"runner/t.c": long_tricky})
        rc, out, _ = run(t.root)
        self.assertEqual(out.splitlines(), ["runner/t.c:12: tricky is 151 lines (limit 150)"])

    def test_cuda_templates_and_extern_c(self):
        cu = ('extern "C" {\n#include "x.h"\n}\n'
              "template <> __host__ __device__ inline float from<float>(float x) { return x; }\n"
              'extern "C" {\n' + function("inside", 151) + "}\n"
              "template <typename T> __global__ void fill(T *x, size_t n)\n{\n    x[0] = 0;\n}\n")
        t = self.tree({"runner/k.cu": cu})
        rc, out, _ = run(t.root, "--top", "3")
        self.assertEqual(rc, 1)
        self.assertIn("runner/k.cu:6: inside is 151 lines (limit 150)", out)
        self.assertIn("3     runner/k.cu:fill\n", out)
        self.assertIn("1     runner/k.cu:from\n", out)

    def test_stale_entries_are_reported_and_fail(self):
        t = self.tree({"runner/a.c": function("big", 160) + function("small", 150)},
                      "runner/a.c:big 160  # reason\n"
                      "runner/a.c:small 170  # reason\n"
                      "runner/gone.c:big 170  # reason\n")
        rc, out, err = run(t.root)
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(out, "")
        self.assertIn("ci/function-length-allow.txt:2: stale entry: runner/a.c:small is now 150 lines, "
                      "within the limit of 150; remove the entry", err)
        self.assertIn("ci/function-length-allow.txt:3: stale entry: runner/gone.c:big no longer exists", err)
        self.assertNotIn(":1:", err)

    def test_malformed_allow_list_exits_2(self):
        files = {"runner/a.c": function("big", 160)}
        cases = [
            ("runner/a.c:big 160\n", ":1: expected 'PATH:FUNCTION LINES  # reason'"),
            ("# c\n\nrunner/a.c big 160  # r\n", ":3: expected"),
            ("runner/a.c:big many  # r\n", ":1: expected"),
            ("runner/a.c:big 160  #   \n", ":1: runner/a.c:big has no reason"),
            ("runner/a.c:big 160  # reason needed\n", ":1: runner/a.c:big: write the reason"),
            ("runner/a.c:big 150  # r\n", ":1: runner/a.c:big: 150 lines is not over the limit"),
            ("runner/a.c:big 160  # r\nrunner/a.c:big 170  # r\n", ":2: runner/a.c:big listed again"),
        ]
        for text, message in cases:
            t = self.tree(files, text)
            rc, out, err = run(t.root)
            self.assertEqual(rc, 2, text + out + err)
            self.assertIn(ALLOW + message, err, text)

    def test_usage_and_parse_errors_exit_2(self):
        t = self.tree({"runner/a.c": function("f", 3)})
        self.assertEqual(run(t.root, "--no-such-flag")[0], 2)
        self.assertEqual(run(t.root, "--top", "0")[0], 2)
        self.assertEqual(run(t.root, "--scan", "nowhere")[0], 2)
        t = self.tree({"runner/a.c": "int f(void)\n{\n    if (1) {\n}\n"})
        rc, _, err = run(t.root)
        self.assertEqual(rc, 2)
        self.assertIn("runner/a.c: 1 '{' not closed", err)
        t = self.tree({"runner/a.c": "int f(void)\n{\n}\n}\n"})
        rc, _, err = run(t.root)
        self.assertEqual(rc, 2)
        self.assertIn("runner/a.c:4: '}' closes nothing", err)

    def test_top_lists_the_longest(self):
        t = self.tree({"runner/a.c": function("big", 170) + function("mid", 151) + function("small", 10)},
                      "runner/a.c:big 170  # reason\n")
        rc, out, _ = run(t.root, "--top", "3")
        self.assertEqual(rc, 1)  # mid is not allowed
        lines = out.splitlines()
        self.assertEqual(lines[:6], ["170   runner/a.c:big [ALLOWED]", "151   runner/a.c:mid", "",
                                     "---- threshold: 150 ----", "", "10    runner/a.c:small"])
        self.assertIn("Average function length: 110.33 lines (3 functions)", out)
        self.assertEqual(lines[-1], "runner/a.c:172: mid is 151 lines (limit 150)")

    def test_write_allow_keeps_reasons_across_moves(self):
        allow = ("# the header stays\n"
                 "runner/a.c:big 170  # one option table\n"
                 "runner/old.c:moved 200  # linear steps\n"
                 "runner/p/one.c:helper 170  # helper one\n"
                 "runner/q/two.c:helper 170  # helper two\n"
                 "runner/x/dup.c:dup 160  # dup in x\n"
                 "runner/y/dup.c:dup 160  # dup in y\n")
        t = self.tree({"runner/a.c": function("big", 175),
                       "runner/new/place.c": function("moved", 190),
                       "runner/base/two.c": function("helper", 171),
                       "runner/z/dup.c": function("dup", 161),
                       "runner/fresh.c": function("fresh", 151) + function("short", 20)}, allow)
        rc, out, err = run(t.root, "--write-allow")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(out.splitlines(), [
            "# the header stays",
            "runner/a.c:big 175  # one option table",         # same path: current length
            "runner/base/two.c:helper 171  # helper two",     # moved; two entries named helper, one two.c
            "runner/fresh.c:fresh 151  # reason needed",      # new
            "runner/new/place.c:moved 190  # linear steps",   # moved; the one entry named moved
            "runner/z/dup.c:dup 161  # reason needed",        # two entries named dup, both dup.c: no guess
        ])
        # --write-allow reads a list holding the placeholder; the check refuses it.
        t.write(ALLOW, out)
        self.assertEqual(run(t.root, "--write-allow")[1], out)
        self.assertEqual(run(t.root)[0], 2)
        # The regenerated list, once the placeholders are replaced, passes.
        t.write(ALLOW, out.replace("reason needed", "a real reason"))
        rc, out, err = run(t.root)
        self.assertEqual(rc, 0, out + err)


class RealTree(unittest.TestCase):
    """The real runner/ with the real allow-list."""

    def test_real_tree_passes(self):
        rc, out, err = run(REPO)
        self.assertEqual(rc, 0, out + err)

    def test_growing_an_allow_listed_function_fails(self):
        root = tempfile.mkdtemp(prefix="pg-fnlen-real-")
        try:
            shutil.copytree(os.path.join(REPO, "runner"), os.path.join(root, "runner"))
            os.makedirs(os.path.join(root, "ci"))
            shutil.copy(os.path.join(REPO, ALLOW), os.path.join(root, ALLOW))
            rc, out, _ = run(root, "--write-allow")
            entries = [l for l in out.splitlines() if l and not l.startswith("#")]
            if not entries:
                self.skipTest("the allow-list is empty")
            key, count = entries[0].split()[:2]
            path, name = key.rsplit(":", 1)
            full = os.path.join(root, path)
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines(True)
            # Right after the line holding the function's name and its '(' ... '{'.
            at = next(i for i, l in enumerate(lines) if l.startswith("{") and i > 0 and
                      any(name + "(" in lines[k] for k in range(max(0, i - 4), i))) + 1
            lines.insert(at, "    ;\n")
            with open(full, "w", encoding="utf-8") as f:
                f.writelines(lines)
            rc, out, _ = run(root)
            self.assertEqual(rc, 1)
            self.assertIn("%s is %d lines (limit 150), grew past its allow-list entry of %s"
                          % (name, int(count) + 1, count), out)
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=1)
