/* cmd_count.c - `perfgate count -- PROGRAM ARGS...`: the FLOPs of any program's BLAS calls, by
   function, op and range (FlopCounterMode's table for a program perfgate did not write). */
#include "cli/cli.h"

#include "meter/count.h"
#include "perfgate/errors.h"
#include "base/outfile.h"
#include "base/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char count_desc[] =
    "Runs PROGRAM with libperfgate_count.so preloaded, which counts every BLAS\n"
    "level-3 and level-2 call (s/d/c/z gemm, symm, syrk, trmm, trsm, gemv),\n"
    "through CBLAS (cblas_sgemm: NumPy, C programs) or Fortran (sgemm_: PyTorch,\n"
    "SciPy) alike, with the FLOP formulas of perfgate's own FLOP counter\n"
    "(2*m*n*k for a GEMM; a complex multiply-add is 8 real FLOPs), and prints the\n"
    "FLOPs by calling function, by op and shape, and by range (PG_COUNT_RANGE_PUSH\n"
    "from perfgate/count.h, NVTX ranges, or python/perfgate_count.py). Children\n"
    "the program starts are counted too. The program's own output goes where\n"
    "perfgate's goes, before the table; with --json on stdout, the program's\n"
    "stdout goes to stderr, so stdout holds the JSON alone. -o FILE writes the\n"
    "table or JSON to FILE, out of the program's reach. A program linked\n"
    "statically against its BLAS, or setuid, cannot be counted. Function names\n"
    "come from the program's symbol table: build with symbols (not stripped) and\n"
    "mark small functions noinline to see them by name.\n\n"
    "examples:\n"
    "  perfgate count -- ./build/examples/blas-count/blas_prog\n"
    "  perfgate count -- python3 examples/torch/mlp_step.py\n"
    "  perfgate count --json -o flops.json -- python3 train.py --steps 1";

static json_t *rows_json(const pg_counts *c)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < c->n; i++) {
        const pg_count_row *r = &c->rows[i];
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "op", r->op, "function", r->function,
                                           "range", r->range, "shape", r->shape, "calls", (json_int_t)r->calls,
                                           "flops", (json_int_t)r->flops));
    }
    return a;
}

/* Writes `text` to `f` (opened on `path`) and closes it. @return 0, or the exit code of the failure (printed). */

int pg_cmd_count(int argc, char **argv)
{
    double timeout = 600;
    int as_json = 0, nargs, rc, err;
    const char *out_path = "-";
    const pg_opt opts[] = {
        {"timeout", 0, PG_OPT_DOUBLE, &timeout, "S", "kill the program after S seconds (default 600)"},
        {"json", 0, PG_OPT_FLAG, &as_json, NULL, "print {total, calls, processes, rows} as JSON"},
        {"output", 'o', PG_OPT_STR, &out_path, "FILE",
         "write the table or JSON to FILE instead of stdout, where the program's output cannot mix in"},
        {0},
    };
    const pg_cmd_spec spec = {"count", "[options] -- PROGRAM [ARGS...]",
                              "Count the FLOPs of a program's BLAS calls, by function, op and range.", count_desc,
                              opts, 1, -1};
    pg_counts c;
    pg_buf b = PG_BUF_INIT;
    pg_outfile out;

    if ((rc = pg_cli_parse(&spec, argc, argv, &nargs)) != 0)
        return rc < 0 ? 0 : rc;
    if (!(timeout > 0)) {
        fprintf(stderr, "perfgate count: --timeout must be positive\n");
        return 2;
    }
    argv[nargs + 1] = NULL;
    /* A file that cannot be written fails before the program runs, not after; it replaces FILE only when whole. */
    if ((err = pg__outfile_open(&out, out_path, "counts")) != 0)
        return pg_cli_fail(err);
    /* JSON on stdout stays one document: the program's own stdout goes to stderr then. */
    if ((err = pg_count_run(&c, argv + 1, timeout,
                            as_json && out.f == stdout ? PG_COUNT_STDOUT_TO_STDERR : PG_COUNT_SHOW)) != 0) {
        pg__outfile_abort(&out);
        return pg_cli_fail(err);
    }
    if (as_json) {
        json_t *o = json_pack("{s:I, s:I, s:i, s:o}", "total", (json_int_t)c.total, "calls", (json_int_t)c.calls,
                              "processes", c.processes, "rows", rows_json(&c));
        char *text = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
        if (!text)
            err = pg_error_set(PG_ENOMEM, "out of memory writing the counts");
        else
            pg__buf_printf(&b, "%s\n", text);
        free(text);
        json_decref(o);
    } else {
        err = pg_counts_table(&c, &b);
    }
    if (!err) {
        fputs(b.ptr ? b.ptr : "", out.f);
        err = pg__outfile_commit(&out, "counts");
    } else {
        pg__outfile_abort(&out);
    }
    rc = err ? pg_cli_fail(err) : 0;
    pg__buf_clear(&b);
    pg_counts_clear(&c);
    return rc;
}
