/*
 * kern_time.c - kern_a's (or, given "b", kern_b's) sweeps once, and the
 * time they are worth reported for `metrics: json`: 5 µs a sweep, exactly.
 * The tests of the nightly's issues gate nights on it, so that their
 * verdicts follow the repository's commits whatever the machine's load;
 * the tests of bisect measure the plugin (kern.c) instead.
 */
#include <stdio.h>
#include <string.h>

#include "work.h"

enum { N = 1024 };

int main(int argc, char **argv)
{
    static float x[N], y[N];
    int count = argc > 1 && strcmp(argv[1], "b") == 0 ? B_SWEEPS : A_SWEEPS, s, i;

    for (i = 0; i < N; i++) {
        x[i] = (float)(1 + i % 17) * 0.01f;
        y[i] = 1.0f;
    }
    for (s = 0; s < count; s++)
        for (i = 0; i < N; i++)
            y[i] = y[i] * 0.999f + x[i];
    printf("{\"time\": %.9f, \"checksum\": %.3f}\n", count * 5e-6, (double)y[N / 2]);
    return 0;
}
