# Small pytest-benchmark suite used to generate perfgate's importer fixture.
import pytest

def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

@pytest.mark.parametrize("n", [100, 1000])
def test_fib(benchmark, n):
    benchmark(fib, n)

def test_sorted(benchmark):
    data = list(range(2000, 0, -1))
    benchmark(sorted, data)
