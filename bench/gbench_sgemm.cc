// gbench_sgemm.cc - the sgemm kernel perfgate times (n=256, row-major, alpha 1, beta 0, uniform
// [-1,1) inputs), timed by Google Benchmark instead, for bench/sgemm_spread.sh.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <random>
#include <vector>

static void BM_sgemm(benchmark::State &state)
{
    const int n = static_cast<int>(state.range(0));
    std::vector<float> a(n * n), b(n * n), c(n * n);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);

    for (auto &x : a) x = u(rng);
    for (auto &x : b) x = u(rng);
    for (auto &x : c) x = u(rng);
    for (auto _ : state) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                    c.data(), n);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    state.counters["FLOPS"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_sgemm)->Arg(256)->Unit(benchmark::kMicrosecond);

int main(int argc, char **argv)
{
    openblas_set_num_threads(1); // the same single thread perfgate's case runs at
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
