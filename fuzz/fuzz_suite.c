/*
 * fuzz_suite.c - libFuzzer target for the suite loader and expressions.
 *
 * Arbitrary bytes go through the whole loading path (libyaml, node tree,
 * anchors and merges, schema validation, matrix expansion, expression
 * evaluation of expect values); whatever loads is then read back the way the
 * executor reads it. Built by fuzz/CMakeLists.txt with PG_FUZZ=ON; run by
 * ci/checks.d/fuzz-suite.sh under ASan and UBSan.
 */
#include "base/expr.h"
#include "suite/suite.h"
#include "suite/expect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int lookup(int64_t *out, const char *name, void *payload)
{
    (void)payload;
    if (strcmp(name, "B") == 0 || strcmp(name, "n") == 0) {
        *out = 64;
        return 0;
    }
    return 1;
}

static void read_back(const pg_suite *s)
{
    size_t i, j;

    for (i = 0; i < s->ncases; i++) {
        const pg_case *c = &s->cases[i];
        volatile size_t sink = strlen(c->key) + strlen(c->params_json);
        for (j = 0; j < c->nparams; j++)
            sink += (size_t)pg_case_param_int(c, c->params[j].name, 0) + strlen(pg_case_param_str(c, "n", ""));
        (void)sink;
    }
    for (i = 0; i < s->nchecks; i++) {
        const pg_check *ck = &s->checks[i];
        const pg_node *total = pg_node_get(ck->expect, "total");
        pg_case c;
        int64_t v;
        if (!ck->workload || pg_case_from_workload(&c, ck->workload, s->name, ck->name) != 0)
            continue;
        if (total)
            (void)pg_expect_eval(&v, &c, total);
        pg_case_clear(&c);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_suite_options opts = PG_SUITE_OPTIONS_INIT;
    pg_suite *s = NULL;
    pg_diags d = {0};
    pg_expr_error err;
    char expr[257];
    int64_t v;
    size_t n = size < 256 ? size : 256;

    /* A lower cap keeps each input fast; the cap's own logic is still exercised. */
    opts.max_cases = 2000;
    if (pg_suite_load_buffer(&s, "fuzz.yaml", (const char *)data, size, &opts, &d) == 0)
        read_back(s);
    pg_suite_free(s);
    pg_diags_clear(&d);

    memcpy(expr, data, n);
    expr[n] = '\0';
    (void)pg_expr_eval(&v, expr, lookup, NULL, &err);
    return 0;
}
