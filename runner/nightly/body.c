/*
 * body.c - the words of the nightly's issues (internal.h): title, body,
 * the nights' table kept up to date, the comments, and the state read back
 * from a body.
 *
 * Keys, reasons and subjects are the suite's or the repository's words: in
 * markdown they go through the text rule (base/text.h), into code spans or
 * pg__text_md() with '@' as an entity, so they format nothing and mention no
 * one. Links are built only from commits of hex digits.
 */
#include "nightly/nightly.h"

#include "base/text.h"
#include "nightly/internal.h"
#include "perfgate/errors.h"
#include "report/report.h"
#include "verdict/verdict.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NIGHTS_OPEN "<!-- perfgate-nights -->"
#define NIGHTS_CLOSE "<!-- /perfgate-nights -->"
#define STATE "<!-- perfgate-state "
#define NIGHTS_HEAD "| night | commit | against the nights before the change | verdict |\n|---|---|---|---|\n"

static int hex(const char *s, size_t min, size_t max)
{
    size_t n = 0;

    while (s && isxdigit((unsigned char)s[n]))
        n++;
    return s && n >= min && n <= max && s[n] == '\0';
}

void pg__nightly_state_clear(pg__nightly_state *s)
{
    free(s->reference);
    memset(s, 0, sizeof(*s));
}

/* A uuid list as the marker keeps it (comma-separated) into the store's (space-separated); NULL when malformed. */
static char *uuids_from_marker(const char *v, size_t len)
{
    char *out = malloc(len + 1);
    size_t i;

    for (i = 0; out && i < len; i++) {
        if (!isxdigit((unsigned char)v[i]) && v[i] != '-' && v[i] != ',') {
            free(out);
            return NULL;
        }
        out[i] = v[i] == ',' ? ' ' : v[i];
    }
    if (out)
        out[len] = '\0';
    return out;
}

int pg__nightly_parse(pg__nightly_state *out, const char *body)
{
    const char *k = body ? strstr(body, PG__NIGHTLY_MARKER) : NULL, *st = body ? strstr(body, STATE) : NULL, *p, *e;

    memset(out, 0, sizeof(*out));
    if (!k || !st || sscanf(k + strlen(PG__NIGHTLY_MARKER), "%16[0-9a-f]", out->hash) != 1 || strlen(out->hash) != 16)
        return -1;
    e = strstr(st, "-->");
    if (!e)
        return -1;
    for (p = st + strlen(STATE); p < e;) {
        size_t n = strcspn(p, " ");
        if (p + n > e)
            n = (size_t)(e - p);
        if (n > 6 && strncmp(p, "state=", 6) == 0)
            out->recovered = strncmp(p + 6, "recovered", 9) == 0;
        else if (n > 6 && n <= 6 + 40 && strncmp(p, "since=", 6) == 0)
            snprintf(out->since, sizeof(out->since), "%.*s", (int)(n - 6), p + 6);
        else if (n > 6 && n <= 6 + 36 && strncmp(p, "night=", 6) == 0)
            snprintf(out->night, sizeof(out->night), "%.*s", (int)(n - 6), p + 6);
        else if (n > 10 && strncmp(p, "reference=", 10) == 0 && !out->reference)
            out->reference = uuids_from_marker(p + 10, n - 10);
        p += n;
        while (p < e && *p == ' ')
            p++;
    }
    if (!hex(out->since, 7, 40) || !out->reference || strspn(out->night, "0123456789abcdef-") != strlen(out->night)) {
        pg__nightly_state_clear(out);
        return -1;
    }
    return 0;
}

char *pg__nightly_commit_url(const char *server, const char *repo, const char *sha)
{
    return hex(sha, 7, 64) && repo ? pg__asprintf("%s/%s/commit/%s", server, repo, sha) : NULL;
}

static void commit_link(pg_buf *b, const char *server, const char *repo, const char *sha)
{
    char *url = pg__nightly_commit_url(server, repo, sha);

    if (url)
        pg__buf_printf(b, "[`%.7s`](%s)", sha, url);
    else
        pg__text_md_code(b, sha ? sha : "-");
    free(url);
}

/* A reason as markdown text, with '@' as an entity so that it mentions no one. */
static void reason_text(pg_buf *b, const char *s)
{
    while (s && *s) {
        const char *at = strchr(s, '@');
        char *part = pg__asprintf("%.*s", (int)(at ? at - s : (long)strlen(s)), s);
        pg__text_md(b, part);
        free(part);
        if (!at)
            break;
        pg__buf_puts(b, "&#64;");
        s = at + 1;
    }
}

static void state_marker(pg_buf *b, const pg_nightly_case *c, int recovered)
{
    const char *p;

    pg__buf_printf(b, "%s%s -->\n" STATE "state=%s since=%s night=%s reference=", PG__NIGHTLY_MARKER, c->hash,
                   recovered ? "recovered" : "regressed", c->since ? c->since : "", c->night ? c->night : "");
    for (p = c->reference ? c->reference : ""; *p; p++)
        pg__buf_put(b, *p == ' ' ? "," : p, 1);
    pg__buf_puts(b, " -->\n");
}

static void night_row(pg_buf *b, const pg_nightly *n, const pg_nightly_case *c, const char *server, const char *repo)
{
    char date[32], ch[96];

    pg__iso_time(date, n->tonight_at);
    date[10] = '\0';
    pg_fmt_change_ci(ch, sizeof(ch), c->ratio, c->ci_lo, c->ci_hi);
    pg__buf_printf(b, "| %s | ", date);
    commit_link(b, server, repo, n->tonight);
    pg__buf_printf(b, " | %s | %s |\n", ch, pg_verdict_name(c->verdict));
}

char *pg__nightly_title(const pg_nightly_case *c, const char *since)
{
    char ch[32], key[200];

    /* A title renders no markdown, but is text leaving perfgate all the same: plain (base/text.h). */
    snprintf(key, sizeof(key), "%s", c->key);
    pg__text_plain_inplace(key, 0);
    pg_fmt_change(ch, sizeof(ch), c->ratio);
    return pg__asprintf("perf: %s is slower since %.7s (%s)", key, since ? since : "-", ch);
}

static void links(pg_buf *b, const pg_nightly *n, const char *server, const char *repo)
{
    pg__buf_puts(b, "\n**Links:** ");
    if (n->run_url && strncmp(n->run_url, "https://", 8) == 0 && !strpbrk(n->run_url, " ()<>[]\"'"))
        pg__buf_printf(b, "[the night's run](%s) · ", n->run_url);
    if (repo && hex(n->previous, 7, 64) && hex(n->tonight, 7, 64))
        pg__buf_printf(b, "[the night's commits](%s/%s/compare/%s...%s)", server, repo, n->previous, n->tonight);
    else
        pg__buf_puts(b, "the first night: no commits to compare");
    pg__buf_puts(b, "\n");
}

int pg__nightly_body(pg_buf *out, const pg_nightly *n, const pg_nightly_case *c, const char *bisection,
                     const char *server, const char *repo)
{
    char ch[96], date[32];

    state_marker(out, c, 0);
    pg__iso_time(date, n->tonight_at);
    date[10] = '\0';
    pg_fmt_change_ci(ch, sizeof(ch), c->ratio, c->ci_lo, c->ci_hi);
    pg__buf_puts(out, "### ");
    pg__text_md_code(out, c->key);
    pg__buf_puts(out, " is slower since ");
    commit_link(out, server, repo, c->since);
    pg__buf_printf(out, "\n\nThe nightly gate of %s decided **REGRESSED** against the nights before: %s (", date, ch);
    reason_text(out, c->reason ? c->reason : "no reason stored");
    pg__buf_puts(out, ").\n\n#### The night's commits, bisected\n\n");
    if (bisection)
        pg__buf_puts(out, bisection);
    else
        pg__buf_puts(out, "No bisection ran for this case tonight (the nightly's bisect step was off, timed out or "
                          "failed: its log says which).\n");
    pg__buf_puts(out, "\n#### Nights since the change\n\n" NIGHTS_OPEN "\n" NIGHTS_HEAD);
    night_row(out, n, c, server, repo);
    pg__buf_puts(out, NIGHTS_CLOSE "\n");
    links(out, n, server, repo);
    pg__buf_puts(out, "\n---\n_perfgate keeps this issue: every night it adds the night above; it comments when the "
                      "case recovers, and while this issue is open it opens no other for this case. Close it once the "
                      "change is understood._\n");
    return out->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}

/* `old` with its nights' table given tonight's row first, at most PG__NIGHTLY_ROWS rows. */
static void splice_nights(pg_buf *b, const char *old, const pg_nightly *n, const pg_nightly_case *c,
                          const char *server, const char *repo)
{
    const char *open = strstr(old, NIGHTS_OPEN), *close = open ? strstr(open, NIGHTS_CLOSE) : NULL, *p;
    char tonight[16] = "";
    size_t rows = 0;

    if (hex(n->tonight, 7, 64))
        snprintf(tonight, sizeof(tonight), "`%.7s`", n->tonight);
    if (!open || !close) {
        /* The section was edited away: the body as it is, and a table of its own again. */
        pg__buf_printf(b, "%s\n\n" NIGHTS_OPEN "\n" NIGHTS_HEAD, old);
        night_row(b, n, c, server, repo);
        pg__buf_puts(b, NIGHTS_CLOSE "\n");
        return;
    }
    pg__buf_put(b, old, (size_t)(open - old));
    pg__buf_puts(b, NIGHTS_OPEN "\n" NIGHTS_HEAD);
    night_row(b, n, c, server, repo);
    for (p = open + strlen(NIGHTS_OPEN); p < close; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : close) {
        size_t len = (size_t)((strchr(p, '\n') && strchr(p, '\n') < close ? strchr(p, '\n') + 1 : close) - p);
        /* The rows of earlier nights: table lines that are not the header, nor tonight's from a run before. */
        if (len < 2 || p[0] != '|' || strncmp(p, "| night |", 9) == 0 || strncmp(p, "|---", 4) == 0 ||
            (tonight[0] && memmem(p, len, tonight, strlen(tonight))))
            continue;
        if (++rows < PG__NIGHTLY_ROWS)
            pg__buf_put(b, p, len);
    }
    pg__buf_puts(b, close);
}

int pg__nightly_next_body(char **out, const char *old, const pg_nightly *n, const pg_nightly_case *c, int recovered,
                          const char *server, const char *repo)
{
    const char *st = strstr(old, STATE), *end = st ? strstr(st, "-->") : NULL, *k = strstr(old, PG__NIGHTLY_MARKER);
    const char *rest;
    pg_buf b = PG_BUF_INIT, tail = PG_BUF_INIT;

    *out = NULL;
    if (!st || !end || !k)
        return pg_error_set(PG_EINVAL, "the issue's body lost its perfgate markers");
    /* The markers again, with the state now; the rest of the body after them as it was, the nights updated. */
    state_marker(&b, c, recovered);
    rest = end + 3;
    while (*rest == '\n')
        rest++;
    if (k > rest)
        rest = old; /* markers out of their place: keep everything */
    splice_nights(&tail, rest, n, c, server, repo);
    if (tail.ptr)
        pg__buf_puts(&b, tail.ptr);
    pg__buf_clear(&tail);
    if (!b.ptr)
        return pg_error_set(PG_ENOMEM, "out of memory");
    *out = pg__buf_detach(&b);
    return 0;
}

int pg__nightly_comment(pg_buf *out, const pg_nightly *n, const pg_nightly_case *c, int again, const char *server,
                        const char *repo)
{
    char ch[96], date[32];

    pg__iso_time(date, n->tonight_at);
    date[10] = '\0';
    pg_fmt_change_ci(ch, sizeof(ch), c->ratio, c->ci_lo, c->ci_hi);
    pg__text_md_code(out, c->key);
    pg__buf_printf(out, " %s the night of %s at ", again ? "is slower again" : "recovered", date);
    commit_link(out, server, repo, n->tonight);
    pg__buf_printf(out, ": %s against the nights before the change (%s)", ch, pg_verdict_name(c->verdict));
    if (!again && c->back == PG_VERDICT_IMPROVED) {
        pg_fmt_change_ci(ch, sizeof(ch), c->back_ratio, c->back_lo, c->back_hi);
        pg__buf_printf(out, " and %s against the nights since it (IMPROVED)", ch);
    }
    pg__buf_puts(out, ".");
    if (n->run_url && strncmp(n->run_url, "https://", 8) == 0 && !strpbrk(n->run_url, " ()<>[]\"'"))
        pg__buf_printf(out, " [The night's run](%s).", n->run_url);
    pg__buf_puts(out, again ? "\n" : "\n\nperfgate comments once; close the issue when you agree.\n");
    return out->ptr ? 0 : pg_error_set(PG_ENOMEM, "out of memory");
}
