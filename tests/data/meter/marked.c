/*
 * marked.c - a program for `command:` cases under the instructions
 * instrument: 50n rounds of mixing it does not mark (start-up work), then
 * `regions` marked regions of n rounds each (perfgate/region.h).
 * usage: marked N REGIONS
 */
#include <perfgate/region.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t result;

static uint64_t mix(int64_t rounds)
{
    uint64_t h = 1469598103934665603ull;
    int64_t i;

    for (i = 0; i < rounds; i++)
        h = (h ^ (uint64_t)i) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 1000;
    int regions = argc > 2 ? atoi(argv[2]) : 1, r;

    result = mix(50 * n);
    for (r = 0; r < regions; r++) {
        PERFGATE_REGION_BEGIN();
        result = mix(n);
        PERFGATE_REGION_END();
    }
    printf("%llu\n", (unsigned long long)result);
    return 0;
}
