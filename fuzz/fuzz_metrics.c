/*
 * fuzz_metrics.c - libFuzzer target: the output of a command benchmark with
 * `metrics: json`, whose last line the runner reads as the iteration's time
 * and metrics (the command is the user's, its output anything).
 */
#include "backend/backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *extra = NULL;
    int64_t ns;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    (void)pg__backend_command_metrics(&ns, &extra, text);
    free(extra);
    free(text);
    return 0;
}
