/*
 * fuzz_child.c - libFuzzer target: the record a benchmark child process
 * sends back over its pipe. The child runs plugin code that may scribble
 * over anything, so the runner reads the record as untrusted bytes; the
 * first input byte picks the child's wait status (clean exit, an exit code,
 * a signal), the rest is the record. The same bytes go to a worker's
 * request decoder too (the other direction of the protocol), with a table
 * size the first byte also picks.
 */
#include "measure/child.h"
#include "base/model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int statuses[] = {0, 1 << 8, 3 << 8, 86 << 8, 9, 11, 6};
    pg_run *run = NULL;
    pg_result *r;
    int status;

    if (size == 0)
        return 0;
    status = statuses[data[0] % (sizeof(statuses) / sizeof(statuses[0]))];
    if (pg_run_new(&run) != 0 || pg_run_add_result(&r, run) != 0)
        abort();
    (void)pg__child_decode(r, "benchmark 'fuzz'", (const char *)data + 1, size - 1, status);
    pg_run_free(run);
    {
        pg_child_request rq;
        size_t nitems = (size_t)(data[0] >> 4) * 3;
        if (pg__child_request_decode(&rq, (const char *)data + 1, size - 1, nitems) == 0 && rq.index >= nitems)
            abort(); /* a request accepted must name an item of the table */
    }
    return 0;
}
