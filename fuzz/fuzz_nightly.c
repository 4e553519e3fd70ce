/*
 * fuzz_nightly.c - libFuzzer target: what the nightly's posting job reads
 * as data. The input is read as a bisection's JSON (the artifact of the job
 * that built and bisected: pg_bisect_read(), then written as the markdown
 * an issue shows and as text), and as the body of an issue perfgate keeps
 * (its markers read back, tonight's night spliced in, a comment written),
 * since a person with write access may have edited that body.
 */
#include "bisect/bisect.h"
#include "fuzz_file.h"
#include "nightly/internal.h"
#include "nightly/nightly.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_bisect_result r;
    pg__nightly_state st;
    pg_nightly n;
    pg_nightly_case c;
    pg_buf b = PG_BUF_INIT;
    char *body = malloc(size + 1), *next = NULL;

    if (!body)
        abort();
    if (pg_bisect_read(&r, fuzz_file(data, size)) == 0) {
        (void)pg_bisect_format(&b, &r, 1, "https://github.com/o/r/commit/");
        pg__buf_clear(&b);
        (void)pg_bisect_format(&b, &r, 0, NULL);
        pg__buf_clear(&b);
        pg_bisect_result_clear(&r);
    }
    memcpy(body, data, size);
    body[size] = '\0';
    if (pg__nightly_parse(&st, body) == 0) {
        memset(&n, 0, sizeof(n));
        memset(&c, 0, sizeof(c));
        n.tonight = "0123456789abcdef0123456789abcdef01234567";
        n.previous = "89abcdef0123456789abcdef0123456789abcdef";
        n.tonight_at = 1700000000;
        c.key = "kern/a[]@1:cpu";
        memcpy(c.hash, st.hash, sizeof(c.hash));
        c.since = st.since;
        c.night = st.night;
        c.reference = st.reference;
        c.ratio = 1.4;
        c.ci_lo = 1.3;
        c.ci_hi = 1.5;
        c.verdict = PG_VERDICT_REGRESSED;
        if (pg__nightly_next_body(&next, body, &n, &c, 0, "https://github.com", "o/r") == 0)
            free(next);
        (void)pg__nightly_comment(&b, &n, &c, 1, "https://github.com", "o/r");
        pg__buf_clear(&b);
        pg__nightly_state_clear(&st);
    }
    free(body);
    return 0;
}
