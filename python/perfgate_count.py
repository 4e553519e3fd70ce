"""Ranges for `perfgate count` from Python: FLOPs by region, as record_function names them.

When perfgate counts a program (`perfgate count -- python3 train.py`, or a
`count: blas` check), it preloads libperfgate_count.so, which counts every
BLAS call the process makes.  This module marks the ranges those calls are
attributed to:

    import perfgate_count

    with perfgate_count.range("attention"):
        scores = q @ k.transpose(-2, -1)      # counted under "attention"

    @perfgate_count.range("optimizer")
    def step(): ...

    perfgate_count.wrap_record_function()     # torch.profiler.record_function ranges count too

Ranges nest ("forward/attention") and belong to the thread that opens them:
a BLAS call made on another thread (a worker pool's) counts outside them.
Without the count library loaded every call here does nothing, so the marks
can stay in production code.  Standard library only; import it by path
(sys.path.insert(0, ".../perfgate/python")), nothing to install.
"""

import contextlib
import ctypes
import functools

# `range` is left out: `from perfgate_count import *` must not hide the builtin range.
__all__ = ["active", "push", "pop", "wrap_record_function"]


def _find():
    """The library's push and pop when it is loaded into this process, else (None, None)."""
    try:
        process = ctypes.CDLL(None)
        push_fn, pop_fn = process.perfgate_range_push, process.perfgate_range_pop
    except (OSError, AttributeError):
        return None, None
    push_fn.argtypes, push_fn.restype = [ctypes.c_char_p], None
    pop_fn.argtypes, pop_fn.restype = [], None
    return push_fn, pop_fn


_push, _pop = _find()


def active():
    """True when libperfgate_count.so is loaded, so ranges reach it."""
    return _push is not None


def push(name):
    """Opens the range `name` (a str) on this thread; no-op without the library."""
    if _push is not None:
        _push(str(name).encode("utf-8", "replace"))


def pop():
    """Closes this thread's innermost range; no-op without the library."""
    if _pop is not None:
        _pop()


class range(contextlib.ContextDecorator):  # noqa: A001 - named as torch's record_function is used
    """A context manager (and decorator) holding one range open: `with range("forward"): ...`."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        push(self.name)
        return self

    def __exit__(self, *exc):
        pop()
        return False


_wrapped = []


def wrap_record_function():
    """Makes torch's record_function open the same range, so existing ranges count without a code change.

    Patches torch.autograd.profiler.record_function (which torch.profiler.record_function is),
    the ProfilerStep#N ranges of torch.profiler.profile.step() included.  Returns True when
    the ranges now count; False (and nothing patched) without the count library or without torch.
    Calling it again does nothing more.
    """
    if not active():
        return False
    if _wrapped:
        return True
    try:
        from torch.autograd import profiler
    except ImportError:
        return False
    cls = profiler.record_function
    enter, exit_ = cls.__enter__, cls.__exit__

    @functools.wraps(enter)
    def __enter__(self):
        push(self.name)
        try:
            return enter(self)
        except BaseException:
            pop()
            raise

    @functools.wraps(exit_)
    def __exit__(self, *exc):
        try:
            return exit_(self, *exc)
        finally:
            pop()

    cls.__enter__, cls.__exit__ = __enter__, __exit__
    _wrapped.append(cls)
    return True
