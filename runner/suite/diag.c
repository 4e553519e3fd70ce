/*
 * diag.c - the suite loader's diagnostics: collecting "FILE:LINE:COL: message"
 * lines, sorting them by position, and suggesting the name a typo meant.
 */
#include "suite/internal.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pg_diags_clear(pg_diags *d)
{
    size_t i;

    if (!d)
        return;
    for (i = 0; i < d->count; i++)
        free(d->lines[i]);
    free(d->lines);
    d->lines = NULL;
    d->count = 0;
}

/* Appends a line the list takes ownership of. */
int pg__diag_push(pg_diags *d, char *line)
{
    char **p;

    if (!line)
        return PG_ENOMEM;
    p = realloc(d->lines, (d->count + 1) * sizeof(*p));
    if (!p) {
        free(line);
        return PG_ENOMEM;
    }
    d->lines = p;
    p[d->count++] = line;
    return 0;
}

int pg__diag_add(pg_diags *d, const pg_node *at, const char *fmt, ...)
{
    char msg[768], *c;
    va_list ap;

    /* A NULL list means "validated elsewhere, stay quiet"; the caller still fails. */
    if (!d)
        return PG_ESUITE;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* Messages are one line even when they quote a value holding a newline. */
    for (c = msg; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    pg__diag_push(d, at ? pg__asprintf("%s:%d:%d: %s", at->file, at->line, at->col, msg) : pg__strdup(msg));
    return PG_ESUITE;
}

typedef struct diag_pos {
    long line, col;
    size_t index;
    char *text;
} diag_pos;

static int diag_pos_cmp(const void *a, const void *b)
{
    const diag_pos *x = a, *y = b;

    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorts the lines of one file by line and column, keeping the order of ties. */
void pg__diags_sort(pg_diags *d, const char *file)
{
    size_t i, flen = strlen(file);
    diag_pos *pos;

    if (d->count < 2 || !(pos = calloc(d->count, sizeof(*pos))))
        return;
    for (i = 0; i < d->count; i++) {
        const char *s = d->lines[i];
        char *end;
        pos[i].index = i;
        pos[i].text = d->lines[i];
        pos[i].line = pos[i].col = 0x7fffffff;
        if (strncmp(s, file, flen) == 0 && s[flen] == ':') {
            pos[i].line = strtol(s + flen + 1, &end, 10);
            if (*end == ':')
                pos[i].col = strtol(end + 1, NULL, 10);
        }
    }
    qsort(pos, d->count, sizeof(*pos), diag_pos_cmp);
    for (i = 0; i < d->count; i++)
        d->lines[i] = pos[i].text;
    free(pos);
}

/* ---- did you mean ---- */

/* Optimal string alignment distance (edits and adjacent swaps), ignoring case. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t m[33][33], la = strlen(a), lb = strlen(b), i, j;

    if (la > 32 || lb > 32)
        return (size_t)-1;
    for (i = 0; i <= la; i++)
        m[i][0] = i;
    for (j = 0; j <= lb; j++)
        m[0][j] = j;
    for (i = 1; i <= la; i++)
        for (j = 1; j <= lb; j++) {
            int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
            size_t v = m[i - 1][j - 1] + (ai != bj);
            if (m[i - 1][j] + 1 < v)
                v = m[i - 1][j] + 1;
            if (m[i][j - 1] + 1 < v)
                v = m[i][j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && m[i - 2][j - 2] + 1 < v)
                v = m[i - 2][j - 2] + 1;
            m[i][j] = v;
        }
    return m[la][lb];
}

/* The candidate closest to `word` when it is close enough to be a typo, else NULL. */
const char *pg__closest(const char *word, const char *const *cands)
{
    size_t len = strlen(word), limit = len <= 1 ? 0 : len <= 4 ? 1 : len <= 8 ? 2 : 3, best = (size_t)-1, i;
    const char *pick = NULL;

    for (i = 0; cands && cands[i]; i++) {
        size_t dist = edit_distance(word, cands[i]);
        if (dist < best) {
            best = dist;
            pick = cands[i];
        }
    }
    return best <= limit ? pick : NULL;
}

/* "; did you mean 'x'?" into `buf` when a candidate is close, else "". */
const char *pg__dym(char *buf, size_t size, const char *word, const char *const *cands)
{
    const char *c = pg__closest(word, cands);

    if (c)
        snprintf(buf, size, "; did you mean '%s'?", c);
    else
        buf[0] = '\0';
    return buf;
}
