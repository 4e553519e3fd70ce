/*
 * text.h - the one rule for text that leaves perfgate.
 *
 * Names, messages, commits and branches come from suites, imported result
 * files, saved reports, traces and the command line: any of them may be
 * hostile (a fork's report is written by the pull request's own code). Every
 * such string reaches a terminal, a markdown comment, an HTML or SVG page, an
 * XML file, a workflow command, a comment marker or a status context only
 * through the function for that destination here. Each first makes the text
 * plain: control characters (C0, DEL, C1, so no ANSI escape sequence),
 * bidirectional overrides and bytes that are not UTF-8 become '?'; then it
 * escapes what the destination would otherwise read as markup. Nothing is
 * trusted because of where it came from.
 */
#ifndef PG_TEXT_H
#define PG_TEXT_H

#include <stddef.h>

#include "base/util.h"

/** Text for a terminal or a log line: plain, with line breaks and tabs as spaces. */
void pg__text_term(pg_buf *b, const char *s);

/** pg__text_term() into a new string (caller frees; NULL for NULL or out of memory). */
char *pg__text_term_dup(const char *s);

/**
 * Makes `s` plain in place, keeping its length: each byte of a control
 * character, an override or a byte that is not UTF-8 becomes '?'. Line breaks
 * stay when `keep_newlines`. For messages formatted into a fixed buffer.
 */
void pg__text_plain_inplace(char *s, int keep_newlines);

/** Markdown text (a table cell, a line): no line breaks, no HTML, no emphasis, links or headings. */
void pg__text_md(pg_buf *b, const char *s);

/** A markdown code span (`...`), safe inside a table cell: no backtick, '|' escaped, no line break. */
void pg__text_md_code(pg_buf *b, const char *s);

/**
 * A link target for markdown: an http(s) URL with every character outside
 * RFC 3986's unreserved and reserved sets, and the parentheses, percent-encoded.
 * @return 0, or -1 (nothing appended) for anything but http:// or https://.
 */
int pg__text_md_url(pg_buf *b, const char *url);

/** XML and HTML text and attribute values (& < > " ' escaped). */
void pg__text_xml(pg_buf *b, const char *s);

/** A GitHub workflow command's data (%, CR, LF escaped), or a property's (also ':' and ','). */
void pg__text_workflow(pg_buf *b, const char *s, int property);

/**
 * An identifier that is embedded in markup rather than shown: a comment
 * marker's id, a commit status context. Letters, digits and . _ - + , : /
 * are kept, anything else becomes '-', and it is cut at `max` bytes, so no
 * value can close the marker, start a line or name a context outside the
 * caller's prefix.
 */
void pg__text_ident(pg_buf *b, const char *s, size_t max);

#endif
