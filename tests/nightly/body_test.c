/*
 * body_test.c - the words of the nightly's issues (nightly/body.c): the
 * markers read back, the nights' table kept newest first and bounded, a
 * night posted twice counted once, the state flipped, and the repository's
 * words (keys, reasons) kept from formatting or mentioning anyone.
 */
#include "support.h"

#include "nightly/internal.h"
#include "nightly/nightly.h"

#include <stdlib.h>
#include <string.h>

#define SINCE "134fc88d829f11ac5508a335eff17d0b511bc599"
#define NIGHT "021865b4-a1f7-486c-ab07-096995aa5e9c"
#define REF "93343ea7-3d37-4dda-a571-b11250f70e67 81778f83-609a-4322-9366-aee69b176a64"

static pg_nightly night_of(const char *sha, int64_t at)
{
    pg_nightly n;

    memset(&n, 0, sizeof(n));
    n.tonight = (char *)sha;
    n.previous = "89abcdef0123456789abcdef0123456789abcdef";
    n.tonight_at = at;
    n.run_url = "https://github.com/acme/lib/actions/runs/77";
    return n;
}

static pg_nightly_case case_of(const char *key, const char *reason)
{
    pg_nightly_case c;

    memset(&c, 0, sizeof(c));
    c.key = (char *)key;
    pg_nightly_hash(c.hash, key);
    c.since = SINCE;
    c.night = NIGHT;
    c.reference = REF;
    c.reason = (char *)reason;
    c.verdict = PG_VERDICT_REGRESSED;
    c.ratio = 1.4;
    c.ci_lo = 1.33;
    c.ci_hi = 1.47;
    return c;
}

static size_t rows(const char *body)
{
    size_t n = 0;
    const char *p = body;

    while ((p = strstr(p, "\n| 20")) != NULL) {
        n++;
        p++;
    }
    return n;
}

Test(nightly_body, a_new_body_reads_back_as_its_state)
{
    pg_nightly n = night_of(SINCE, 1767225600);
    pg_nightly_case c = case_of("kern/a[]@1:cpu", "slower");
    pg__nightly_state st;
    pg_buf b = PG_BUF_INIT;

    pg_assert_ok(pg__nightly_body(&b, &n, &c, NULL, "https://github.com", "acme/lib"));
    cr_assert_eq(pg__nightly_parse(&st, b.ptr), 0, "%s", b.ptr);
    cr_assert_str_eq(st.hash, c.hash);
    cr_assert_str_eq(st.since, SINCE);
    cr_assert_str_eq(st.night, NIGHT);
    cr_assert_str_eq(st.reference, REF);
    cr_assert_eq(st.recovered, 0);
    cr_assert(strstr(b.ptr, "No bisection ran for this case"));
    cr_assert(strstr(b.ptr, "[the night's commits](https://github.com/acme/lib/compare/89abcdef"), "%s", b.ptr);
    cr_assert_eq(rows(b.ptr), 1);
    pg__nightly_state_clear(&st);
    pg__buf_clear(&b);
}

Test(nightly_body, the_nights_are_newest_first_bounded_and_counted_once)
{
    pg_nightly_case c = case_of("kern/a[]@1:cpu", "slower");
    pg_nightly n = night_of(SINCE, 1767225600);
    pg_buf b = PG_BUF_INIT;
    char *body, *next, sha[41];
    int i;

    pg_assert_ok(pg__nightly_body(&b, &n, &c, NULL, "https://github.com", "acme/lib"));
    body = pg__buf_detach(&b);
    for (i = 1; i <= 40; i++) {
        snprintf(sha, sizeof(sha), "%07d%033d", i, 0);
        n = night_of(sha, 1767225600 + 86400LL * i);
        pg_assert_ok(pg__nightly_next_body(&next, body, &n, &c, 0, "https://github.com", "acme/lib"));
        free(body);
        body = next;
    }
    cr_assert_eq(rows(body), 30, "%zu rows", rows(body));
    /* Newest first: night 40 above night 39. */
    cr_assert(strstr(body, "[`0000004`]") < strstr(body, "[`0000003`]") || !strstr(body, "[`0000003`]"));
    cr_assert_lt(strstr(body, "| 2026-02-10 |") - body, strstr(body, "| 2026-02-09 |") - body);
    /* The same night posted again replaces its row. */
    pg_assert_ok(pg__nightly_next_body(&next, body, &n, &c, 0, "https://github.com", "acme/lib"));
    cr_assert_eq(rows(next), 30);
    cr_assert_eq(strstr(next, "| 2026-02-10 |") == NULL ? 0 : 1, 1);
    cr_assert_null(strstr(strstr(next, "| 2026-02-10 |") + 1, "| 2026-02-10 |"), "one row a night");
    free(body);
    body = next;
    /* Recovered: the state flips and stays readable. */
    pg_assert_ok(pg__nightly_next_body(&next, body, &n, &c, 1, "https://github.com", "acme/lib"));
    {
        pg__nightly_state st;
        cr_assert_eq(pg__nightly_parse(&st, next), 0);
        cr_assert_eq(st.recovered, 1);
        pg__nightly_state_clear(&st);
    }
    free(body);
    free(next);
}

Test(nightly_body, the_repositorys_words_format_nothing_and_mention_no_one)
{
    pg_nightly n = night_of(SINCE, 1767225600);
    pg_nightly_case c = case_of("kern/`a`|*x*@team[]@1:cpu", "slower for @octocat <img src=x> *now*");
    pg_buf b = PG_BUF_INIT;

    pg_assert_ok(pg__nightly_body(&b, &n, &c, NULL, "https://github.com", "acme/lib"));
    cr_assert_null(strstr(b.ptr, "@octocat"), "%s", b.ptr);
    cr_assert(strstr(b.ptr, "&#64;octocat"), "%s", b.ptr);
    cr_assert_null(strstr(b.ptr, "<img"), "%s", b.ptr);
    cr_assert(strstr(b.ptr, "\\*now\\*"), "%s", b.ptr);
    /* The key in a code span: no backtick inside it, the pipe escaped. */
    cr_assert(strstr(b.ptr, "`kern/'a'\\|*x*@team[]@1:cpu`"), "%s", b.ptr);
    pg__buf_clear(&b);
}

Test(nightly_body, escape_sequences_in_keys_and_reasons_reach_no_title_or_body)
{
    pg_nightly n = night_of(SINCE, 1767225600);
    pg_nightly_case c = case_of("kern/\x1b[31ma\x1b[0m\nb\xe2\x80\xae", "slower \x1b]8;;https://x\x07here\x9b");
    pg_buf b = PG_BUF_INIT;
    char *title = pg__nightly_title(&c, SINCE);

    cr_assert_not_null(title);
    cr_assert_null(strchr(title, '\x1b'), "%s", title);
    cr_assert_null(strchr(title, '\n'), "%s", title);
    cr_assert_null(strstr(title, "\xe2\x80\xae"), "%s", title);
    cr_assert(strstr(title, "kern/?[31ma?[0m b???"), "%s", title);
    pg_assert_ok(pg__nightly_body(&b, &n, &c, NULL, "https://github.com", "acme/lib"));
    cr_assert_null(strchr(b.ptr, '\x1b'), "%s", b.ptr);
    cr_assert_null(strchr(b.ptr, '\x07'), "%s", b.ptr);
    cr_assert_null(strstr(b.ptr, "\xe2\x80\xae"), "%s", b.ptr);
    free(title);
    pg__buf_clear(&b);
}

Test(nightly_body, bodies_without_or_with_broken_markers_are_not_acted_on)
{
    static const char *const bodies[] = {
        "",
        "no markers at all",
        "<!-- perfgate-regression key=826d5b97d6eaf375 -->\nno state",
        "<!-- perfgate-regression key=826d5b97d6eaf375 -->\n<!-- perfgate-state state=regressed since=zz reference=a -->",
        "<!-- perfgate-regression key=826d5b97d6eaf375 -->\n<!-- perfgate-state state=regressed since=" SINCE
        " reference=not;a;uuid -->",
        "<!-- perfgate-regression key=826d5b97d6eaf375 -->\n<!-- perfgate-state state=regressed since=" SINCE
        " night=x' reference=" "93343ea7-3d37 -->",
        "<!-- perfgate-regression key=826d -->\n<!-- perfgate-state state=regressed since=" SINCE " reference=ab -->",
        "<!-- perfgate-state state=regressed since=" SINCE " reference=ab -->",
    };
    size_t i;

    for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        pg__nightly_state st;
        cr_assert_eq(pg__nightly_parse(&st, bodies[i]), -1, "body %zu taken: %s", i, bodies[i]);
    }
}
