/* text.c - the one rule for text that leaves perfgate (text.h). */
#include "base/text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The length of the UTF-8 sequence at `p` (1 to 4) and its code point, or 0
 * for a byte that starts no valid sequence (overlong forms, surrogates and
 * code points past U+10FFFF included).
 */
static size_t utf8_next(const unsigned char *p, uint32_t *cp)
{
    size_t n, i;
    uint32_t c = p[0], min;

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if ((c & 0xE0) == 0xC0) {
        n = 2, c &= 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, c &= 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, c &= 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

/* Control characters and the bidirectional overrides that make text display other than it reads. */
static int unsafe(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F;
}

/*
 * Walks `s` one character at a time: `emit` gets each safe character's
 * bytes, and '?' (length 1) for an unsafe one; line breaks and tabs come as
 * one ' ' unless `keep_ws`.
 */
typedef void (*emit_fn)(pg_buf *b, const char *c, size_t n);

static void walk(pg_buf *b, const char *s, int keep_ws, emit_fn emit)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp = 0;

    while (p && *p) {
        size_t n = utf8_next(p, &cp);
        if (n && (cp == '\n' || cp == '\r' || cp == '\t'))
            emit(b, keep_ws ? (const char *)p : " ", 1);
        else if (!n || unsafe(cp))
            emit(b, "?", 1);
        else
            emit(b, (const char *)p, n);
        p += n ? n : 1;
    }
}

static void put_plain(pg_buf *b, const char *c, size_t n)
{
    pg__buf_put(b, c, n);
}

void pg__text_term(pg_buf *b, const char *s)
{
    walk(b, s, 0, put_plain);
}

char *pg__text_term_dup(const char *s)
{
    pg_buf b = PG_BUF_INIT;

    if (!s)
        return NULL;
    pg__text_term(&b, s);
    if (!b.ptr && *s)
        return NULL;
    return pg__buf_detach(&b);
}

void pg__text_plain_inplace(char *s, int keep_newlines)
{
    unsigned char *p = (unsigned char *)s;
    uint32_t cp = 0;

    while (p && *p) {
        size_t n = utf8_next(p, &cp), i;
        if (n && (cp == '\n' || cp == '\r' || cp == '\t')) {
            if (!keep_newlines || cp == '\t')
                *p = ' ';
        } else if (!n || unsafe(cp)) {
            for (i = 0; i < (n ? n : 1); i++)
                p[i] = '?';
        }
        p += n ? n : 1;
    }
}

/* The three characters both markdown and XML read as markup, as entities. @return 1 when `c` was one. */
static int put_entity(pg_buf *b, char c)
{
    const char *e = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : NULL;

    if (e)
        pg__buf_puts(b, e);
    return e != NULL;
}

static void put_md(pg_buf *b, const char *c, size_t n)
{
    if (n == 1 && put_entity(b, *c))
        return;
    /* Emphasis, code, links and images, table cells: taken literally with a backslash. */
    if (n == 1 && strchr("|\\*_`[]~", *c))
        pg__buf_put(b, "\\", 1);
    pg__buf_put(b, c, n);
}

void pg__text_md(pg_buf *b, const char *s)
{
    walk(b, s, 0, put_md);
}

static void put_md_code(pg_buf *b, const char *c, size_t n)
{
    if (n == 1 && *c == '`')
        pg__buf_put(b, "'", 1);
    else if (n == 1 && *c == '|')
        pg__buf_puts(b, "\\|");
    else
        pg__buf_put(b, c, n);
}

void pg__text_md_code(pg_buf *b, const char *s)
{
    pg__buf_put(b, "`", 1);
    walk(b, s, 0, put_md_code);
    pg__buf_put(b, "`", 1);
}

int pg__text_md_url(pg_buf *b, const char *url)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p;

    if (!url || (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0))
        return -1;
    for (p = (const unsigned char *)url; *p; p++) {
        /* RFC 3986 unreserved and reserved characters, less the parentheses that would end a markdown link. */
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~:/?#@!$&*+,;=%", *p)) {
            pg__buf_put(b, (const char *)p, 1);
        } else {
            char enc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            pg__buf_put(b, enc, 3);
        }
    }
    return 0;
}

static void put_xml(pg_buf *b, const char *c, size_t n)
{
    if (n != 1)
        pg__buf_put(b, c, n);
    else if (*c == '"')
        pg__buf_puts(b, "&quot;");
    else if (*c == '\'')
        pg__buf_puts(b, "&apos;");
    else if (!put_entity(b, *c))
        pg__buf_put(b, c, 1);
}

void pg__text_xml(pg_buf *b, const char *s)
{
    /* XML 1.0 forbids most control characters even escaped; line breaks and tabs are text. */
    walk(b, s, 1, put_xml);
}

static void put_workflow_data(pg_buf *b, const char *c, size_t n)
{
    if (n == 1 && *c == '%')
        pg__buf_puts(b, "%25");
    else
        pg__buf_put(b, c, n);
}

static void put_workflow_property(pg_buf *b, const char *c, size_t n)
{
    if (n == 1 && *c == ':')
        pg__buf_puts(b, "%3A");
    else if (n == 1 && *c == ',')
        pg__buf_puts(b, "%2C");
    else
        put_workflow_data(b, c, n);
}

void pg__text_workflow(pg_buf *b, const char *s, int property)
{
    const char *line = s;

    /* Line breaks are kept as the runner's escapes, so a message keeps its lines. */
    while (line && *line) {
        size_t n = strcspn(line, "\r\n");
        char *part = n ? pg__asprintf("%.*s", (int)n, line) : NULL;
        if (part)
            walk(b, part, 0, property ? put_workflow_property : put_workflow_data);
        free(part);
        line += n;
        if (*line == '\r')
            pg__buf_puts(b, "%0D");
        else if (*line == '\n')
            pg__buf_puts(b, "%0A");
        if (*line)
            line++;
    }
}

void pg__text_ident(pg_buf *b, const char *s, size_t max)
{
    size_t n = 0;

    for (; s && *s && n < max; s++, n++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._-+,:/", c))
            pg__buf_put(b, s, 1);
        else
            pg__buf_put(b, "-", 1);
    }
}
