/*
 * fuzz_import.h - the body of the importer targets: arbitrary bytes as the
 * output file of the harness FUZZ_IMPORT_FORMAT names, read by
 * pg_import_file() exactly as `perfgate import` reads one; whatever imports
 * is read back the way the gate reads results. Each fuzz_import_<format>.c
 * names its format and includes this.
 */
#include "fuzz_file.h"
#include "import/import.h"
#include "base/model.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_import_options opts = PG_IMPORT_OPTIONS_INIT;
    pg_import_notes notes = {0};
    pg_run *run = NULL;
    size_t i, k;

    if (pg_run_new(&run) != 0)
        abort();
    opts.suite = "fuzz";
    if (pg_import_file(run, FUZZ_IMPORT_FORMAT, fuzz_file(data, size), &opts, &notes) == 0) {
        for (i = 0; i < run->nresults; i++) {
            const pg_result *r = &run->results[i];
            volatile double sink = (double)strlen(r->key) + (double)strlen(r->params_json) + r->summary.median;
            for (k = 0; k < r->nsamples; k++)
                sink += r->samples[k];
            (void)sink;
        }
    }
    for (i = 0; i < notes.count; i++)
        (void)strlen(notes.lines[i]);
    pg_import_notes_clear(&notes);
    pg_run_free(run);
    return 0;
}
