/*
 * trace_bench.c - throughput and peak memory of the Chrome-trace reader.
 *
 * Writes a Kineto-style trace of about SIZE megabytes (object form: CPU ops,
 * record_function ranges, CUDA runtime calls, GPU kernels with correlation
 * ids, flow events, args with shapes), then reads it in a child process per
 * mode so each peak RSS is the reader's own:
 *   all      - every event kept (what `perfgate trace` does)
 *   filtered - only names an ops check matches (ProfilerStep#*, aten::mm), GPU links kept
 *   jansson  - jansson's json_load_file, a DOM parser, for comparison (--jansson)
 * usage: trace_bench [SIZE_MB] [--keep FILE] [--jansson]
 */
#include "perfgate/errors.h"
#include "trace/trace.h"
#include "base/util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long long write_trace(const char *path, double mb)
{
    FILE *f = fopen(path, "w");
    long long bytes = 0, target = (long long)(mb * 1e6), corr = 0, ext = 0;
    double ts = 1700000000000.0;
    int step = 0;

    if (!f)
        return -1;
    bytes += fprintf(f, "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"bench\"}],\n"
                        "\"traceEvents\": [\n"
                        "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"tid\": 0, \"args\": {\"name\": \"python\"}}");
    while (bytes < target) {
        double s0 = ts;
        int op;
        bytes += fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 7, "
                            "\"tid\": 7, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %lld}}",
                         step, s0, 64 * 9.0 + 1, ++ext);
        for (op = 0; op < 64; op++) {
            const char *name = op % 4 == 0 ? "aten::mm" : op % 4 == 1 ? "aten::gelu" : op % 4 == 2 ? "aten::add_" : "aten::linear";
            ts += 1.0;
            ++ext;
            ++corr;
            bytes += fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 7, \"tid\": 7, "
                                "\"ts\": %.3f, \"dur\": 8.000, \"args\": {\"External id\": %lld, \"Record function id\": 0, "
                                "\"Input Dims\": [[64, 256], [256, 256]], \"Input type\": [\"float\", \"float\"], "
                                "\"Ev Idx\": %d}}",
                             name, ts, ext, op);
            bytes += fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 7, "
                                "\"tid\": 7, \"ts\": %.3f, \"dur\": 3.500, \"args\": {\"External id\": %lld, \"cbid\": 211, "
                                "\"correlation\": %lld}}",
                             ts + 2, ext, corr);
            bytes += fprintf(f, ",\n{\"ph\": \"s\", \"id\": %lld, \"pid\": 7, \"tid\": 7, \"ts\": %.3f, \"cat\": \"ac2g\", "
                                "\"name\": \"ac2g\"}",
                             corr, ts + 2);
            bytes += fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel"
                                "<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
                                "{lambda()#1}::operator()() const>(int, float*)\", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
                                "\"dur\": 4.250, \"args\": {\"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, "
                                "\"correlation\": %lld, \"registers per thread\": 32, \"shared memory\": 0, "
                                "\"blocks per SM\": 0.5, \"warps per SM\": 2.0, \"grid\": [128, 1, 1], "
                                "\"block\": [128, 1, 1], \"est. achieved occupancy %%\": 0}}",
                             ts + 6, corr);
            ts += 8.0;
        }
        ts += 1.0;
        step++;
    }
    bytes += fprintf(f, "\n], \"traceName\": \"bench\"}\n");
    fclose(f);
    return bytes;
}

static int keep(const char *name, const char *cat, void *payload)
{
    return strcmp(name, "aten::mm") == 0 || strncmp(name, "ProfilerStep#", 13) == 0;
}

/* Runs one mode in a child; prints seconds, MB/s, events and the child's peak RSS. */
static void measure(const char *mode, const char *path, long long bytes)
{
    struct rusage ru;
    int pfd[2], status;
    pid_t pid;
    double secs = 0;
    size_t nev = 0;

    if (pipe(pfd) != 0)
        return;
    pid = fork();
    if (pid == 0) {
        int64_t t0 = pg__mono_ns();
        size_t n = 0;
        close(pfd[0]);
        if (strcmp(mode, "jansson") == 0) {
            json_error_t e;
            json_t *root = json_load_file(path, 0, &e);
            n = root ? json_array_size(json_object_get(root, "traceEvents")) : 0;
            json_decref(root);
        } else {
            pg_trace_read_options ro = PG_TRACE_READ_OPTIONS_INIT;
            pg_trace *t = NULL;
            if (strcmp(mode, "filtered") == 0)
                ro.keep = keep;
            if (pg_trace_read_file(&t, path, &ro) != 0) {
                fprintf(stderr, "%s\n", pg_error_last());
                _exit(1);
            }
            n = t->nevents;
            pg_trace_free(t);
        }
        secs = (double)(pg__mono_ns() - t0) * 1e-9;
        if (write(pfd[1], &secs, sizeof(secs)) < 0 || write(pfd[1], &n, sizeof(n)) < 0)
            _exit(1);
        _exit(0);
    }
    close(pfd[1]);
    if (read(pfd[0], &secs, sizeof(secs)) != sizeof(secs) || read(pfd[0], &nev, sizeof(nev)) != sizeof(nev))
        secs = -1;
    close(pfd[0]);
    wait4(pid, &status, 0, &ru);
    {
        double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                     (double)ru.ru_stime.tv_usec * 1e-6;
        /* CPU time is what a loaded machine distorts least; wall time is what a user waits. */
        printf("%-9s wall %7.2f s %7.1f MB/s | cpu %7.2f s %7.1f MB/s | %9zu events kept | peak RSS %7.1f MiB\n",
               mode, secs, secs > 0 ? (double)bytes / 1e6 / secs : 0, cpu, cpu > 0 ? (double)bytes / 1e6 / cpu : 0,
               nev, (double)ru.ru_maxrss / 1024.0);
    }
}

int main(int argc, char **argv)
{
    double mb = 200;
    const char *keep_path = NULL;
    char path[] = "/tmp/pg-trace-bench-XXXXXX";
    int i, jansson = 0, fd;
    long long bytes;
    int64_t t0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--jansson") == 0)
            jansson = 1;
        else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
            keep_path = argv[++i];
        else
            mb = atof(argv[i]);
    }
    if ((fd = mkstemp(path)) < 0)
        return 1;
    close(fd);
    t0 = pg__mono_ns();
    bytes = write_trace(keep_path ? keep_path : path, mb);
    if (bytes < 0)
        return 1;
    printf("generated %.1f MB Kineto-style trace in %.1f s (%s)\n", (double)bytes / 1e6,
           (double)(pg__mono_ns() - t0) * 1e-9, keep_path ? keep_path : path);
    measure("all", keep_path ? keep_path : path, bytes);
    measure("filtered", keep_path ? keep_path : path, bytes);
    if (jansson)
        measure("jansson", keep_path ? keep_path : path, bytes);
    unlink(path);
    return 0;
}
