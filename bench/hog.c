/*
 * hog.c - creates a machine phase for noise experiments: for a bounded time,
 * saturates memory bandwidth (streams copies through 256 MiB buffers) or one
 * core (a dependent arithmetic loop). Stops by itself.
 * usage: bench_hog mem|cpu SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    double seconds, end;
    size_t n = (size_t)256 << 20;
    volatile double sink = 0;

    if (argc != 3 || (strcmp(argv[1], "mem") && strcmp(argv[1], "cpu")) || (seconds = atof(argv[2])) <= 0 ||
        seconds > 3600) {
        fprintf(stderr, "usage: bench_hog mem|cpu SECONDS (at most 3600)\n");
        return 2;
    }
    end = now() + seconds;
    if (strcmp(argv[1], "mem") == 0) {
        char *a = malloc(n), *b = malloc(n);
        if (!a || !b) {
            fprintf(stderr, "bench_hog: out of memory\n");
            return 3;
        }
        memset(a, 1, n);
        while (now() < end) {
            memcpy(b, a, n);
            memcpy(a, b, n);
            sink += a[12345];
        }
        free(a);
        free(b);
    } else {
        double x = 1.0;
        while (now() < end) {
            for (int i = 0; i < 1000000; i++)
                x = x * 1.0000001 + 1e-9;
            sink += x;
        }
    }
    return sink < 0;
}
