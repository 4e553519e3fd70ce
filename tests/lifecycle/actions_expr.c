/*
 * actions_expr.c - ${{ }} expressions of the Actions emulator (actions.h):
 * literals ('text', numbers, true, false, null), property paths into the
 * contexts, == != && || ! ( ), and the functions perfgate's workflows use.
 * Comparisons of strings ignore case, as Actions' do; && and || give one of
 * their operands, as in Actions.
 */
#include "actions_internal.h"

#include "support.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum vkind { V_NULL, V_BOOL, V_NUM, V_STR };

typedef struct val {
    enum vkind kind;
    char *s; /* the text: "true"/"false" for a bool, the digits for a number */
} val;

typedef struct parser {
    gha_job *j;
    const char *p;
    int failed;
} parser;

static val mk(enum vkind kind, const char *s)
{
    val v = {kind, pg__strdup(s ? s : "")};
    return v;
}

static int truthy(const val *v)
{
    switch (v->kind) {
    case V_NULL:
        return 0;
    case V_BOOL:
        return strcmp(v->s, "true") == 0;
    case V_NUM:
        return strtod(v->s, NULL) != 0;
    default:
        return v->s[0] != '\0';
    }
}

static int fail(parser *ps, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!ps->failed)
        gha_fail(ps->j, "expression: %s", msg);
    ps->failed = 1;
    return -1;
}

static void skip_ws(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

/* ---- contexts ------------------------------------------------------------ */

/* A JSON value as an expression value. */
static val from_json(json_t *v)
{
    char num[64];

    if (!v || json_is_null(v))
        return mk(V_NULL, "");
    if (json_is_string(v))
        return mk(V_STR, json_string_value(v));
    if (json_is_boolean(v))
        return mk(V_BOOL, json_is_true(v) ? "true" : "false");
    if (json_is_integer(v)) {
        snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
        return mk(V_NUM, num);
    }
    if (json_is_real(v)) {
        snprintf(num, sizeof(num), "%.17g", json_real_value(v));
        return mk(V_NUM, num);
    }
    {
        char *text = json_dumps(v, JSON_COMPACT);
        val out = mk(V_STR, text);
        free(text);
        return out;
    }
}

static val github_value(gha_job *j, char **seg, size_t n)
{
    const gha_event *ev = j->ev;
    char num[32];
    const char *ref_name;

    if (n >= 2 && strcmp(seg[1], "event") == 0) {
        json_t *v = j->event;
        size_t i;
        for (i = 2; i < n && v; i++)
            v = json_object_get(v, seg[i]);
        return from_json(v);
    }
    if (n != 2)
        return mk(V_NULL, "");
    ref_name = gha_ref_name(ev->ref);
    if (strcmp(seg[1], "event_name") == 0)
        return mk(V_STR, ev->name);
    if (strcmp(seg[1], "sha") == 0)
        return mk(V_STR, ev->sha);
    if (strcmp(seg[1], "ref") == 0)
        return mk(V_STR, ev->ref);
    if (strcmp(seg[1], "ref_name") == 0)
        return mk(V_STR, ref_name);
    if (strcmp(seg[1], "repository") == 0)
        return mk(V_STR, ev->repository);
    if (strcmp(seg[1], "head_ref") == 0)
        return mk(V_STR, ev->head_ref ? ev->head_ref : "");
    if (strcmp(seg[1], "base_ref") == 0)
        return mk(V_STR, ev->base_ref ? ev->base_ref : "");
    if (strcmp(seg[1], "token") == 0)
        return mk(V_STR, j->g->token);
    if (strcmp(seg[1], "workspace") == 0)
        return mk(V_STR, j->workspace);
    if (strcmp(seg[1], "run_id") == 0) {
        snprintf(num, sizeof(num), "%ld", j->run_id);
        return mk(V_STR, num);
    }
    if (strcmp(seg[1], "run_attempt") == 0)
        return mk(V_STR, "1");
    return mk(V_NULL, "");
}

static val step_value(gha_job *j, char **seg, size_t n)
{
    size_t i;

    if (n < 3)
        return mk(V_NULL, "");
    for (i = 0; i < j->nsteps; i++) {
        const gha_step_state *s = &j->steps[i];
        if (!s->id || strcmp(s->id, seg[1]) != 0)
            continue;
        if (strcmp(seg[2], "outputs") == 0 && n == 4) {
            const char *v = gha_map_get(&s->outputs, seg[3]);
            return v ? mk(V_STR, v) : mk(V_NULL, "");
        }
        if (strcmp(seg[2], "outcome") == 0)
            return mk(V_STR, s->outcome);
        if (strcmp(seg[2], "conclusion") == 0)
            return mk(V_STR, s->conclusion);
    }
    return mk(V_NULL, "");
}

static int lookup(val *out, parser *ps, char **seg, size_t n)
{
    gha_job *j = ps->j;
    const char *v = NULL;

    if (strcmp(seg[0], "github") == 0) {
        *out = github_value(j, seg, n);
        return 0;
    }
    if (strcmp(seg[0], "steps") == 0) {
        *out = step_value(j, seg, n);
        return 0;
    }
    if (strcmp(seg[0], "inputs") == 0 && n == 2) {
        char *key;
        int boolean;
        if (!j->inputs || !(v = gha_map_get(j->inputs, seg[1])))
            return fail(ps, "inputs.%s is not an input of this workflow", seg[1]);
        key = pg__asprintf("%s%s", GHA_BOOLEAN_INPUT, seg[1]);
        boolean = gha_map_get(j->inputs, key) != NULL;
        free(key);
        if (boolean) {
            *out = mk(V_BOOL, strcasecmp(v, "true") == 0 ? "true" : "false");
            return 0;
        }
    } else if (strcmp(seg[0], "runner") == 0 && n == 2) {
        v = strcmp(seg[1], "os") == 0     ? "Linux"
            : strcmp(seg[1], "arch") == 0 ? "X64"
            : strcmp(seg[1], "temp") == 0 ? j->temp
                                          : NULL;
        if (!v)
            return fail(ps, "runner.%s is not known here", seg[1]);
    } else if (strcmp(seg[0], "vars") == 0 && n == 2) {
        v = gha_map_get(&j->g->vars, seg[1]);
    } else if (strcmp(seg[0], "secrets") == 0 && n == 2) {
        v = strcmp(seg[1], "GITHUB_TOKEN") == 0 ? j->g->token : NULL;
    } else if (strcmp(seg[0], "job") == 0 && n == 2 && strcmp(seg[1], "status") == 0) {
        v = j->status;
    } else {
        return fail(ps, "the context '%s' is not known here", seg[0]);
    }
    *out = v ? mk(V_STR, v) : mk(V_NULL, "");
    return 0;
}

/* ---- the grammar --------------------------------------------------------- */

static int parse_or(val *out, parser *ps);

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static int parse_function(val *out, parser *ps, const char *name)
{
    val arg = mk(V_NULL, "");
    int nargs = 0;

    ps->p++; /* ( */
    skip_ws(ps);
    if (*ps->p != ')') {
        free(arg.s);
        if (parse_or(&arg, ps) != 0)
            return -1;
        nargs = 1;
        skip_ws(ps);
    }
    if (*ps->p != ')') {
        free(arg.s);
        return fail(ps, "%s(): one argument at most here", name);
    }
    ps->p++;
    if (strcmp(name, "always") == 0 || strcmp(name, "success") == 0 || strcmp(name, "failure") == 0 ||
        strcmp(name, "cancelled") == 0) {
        int t = strcmp(name, "always") == 0    ? 1
                : strcmp(name, "success") == 0 ? strcmp(ps->j->status, "success") == 0
                : strcmp(name, "failure") == 0 ? strcmp(ps->j->status, "failure") == 0
                                               : 0;
        free(arg.s);
        *out = mk(V_BOOL, t ? "true" : "false");
        return 0;
    }
    if (strcmp(name, "fromJSON") == 0 && nargs == 1) {
        json_error_t je;
        json_t *v = json_loads(arg.s, JSON_DECODE_ANY, &je);
        free(arg.s);
        if (!v)
            return fail(ps, "fromJSON(): not JSON: %s", je.text);
        *out = from_json(v);
        json_decref(v);
        return 0;
    }
    free(arg.s);
    return fail(ps, "the function %s() is not known here", name);
}

static int parse_path(val *out, parser *ps)
{
    char *seg[16], name[128];
    size_t n = 0, k;
    int rc;

    for (;;) {
        size_t len = 0;
        while (ident_char(ps->p[len]) && len < sizeof(name) - 1)
            len++;
        if (len == 0)
            return fail(ps, "a name is missing at '%s'", ps->p);
        memcpy(name, ps->p, len);
        name[len] = '\0';
        ps->p += len;
        if (n == 0 && *ps->p == '(')
            return parse_function(out, ps, name);
        if (n == 0 && (strcmp(name, "true") == 0 || strcmp(name, "false") == 0)) {
            *out = mk(V_BOOL, name);
            return 0;
        }
        if (n == 0 && strcmp(name, "null") == 0) {
            *out = mk(V_NULL, "");
            return 0;
        }
        if (n < 16)
            seg[n++] = pg__strdup(name);
        if (*ps->p != '.')
            break;
        ps->p++;
    }
    rc = lookup(out, ps, seg, n);
    for (k = 0; k < n; k++)
        free(seg[k]);
    return rc;
}

static int parse_primary(val *out, parser *ps)
{
    skip_ws(ps);
    if (*ps->p == '(') {
        ps->p++;
        if (parse_or(out, ps) != 0)
            return -1;
        skip_ws(ps);
        if (*ps->p != ')')
            return fail(ps, "a ')' is missing");
        ps->p++;
        return 0;
    }
    if (*ps->p == '\'') {
        pg_buf b = PG_BUF_INIT;
        for (ps->p++; *ps->p; ps->p++) {
            if (*ps->p == '\'' && ps->p[1] == '\'')
                ps->p++;
            else if (*ps->p == '\'')
                break;
            pg__buf_put(&b, ps->p, 1);
        }
        if (*ps->p != '\'') {
            pg__buf_clear(&b);
            return fail(ps, "a string is not closed");
        }
        ps->p++;
        *out = mk(V_STR, b.ptr ? b.ptr : "");
        pg__buf_clear(&b);
        return 0;
    }
    if (isdigit((unsigned char)*ps->p) || *ps->p == '-') {
        char *end;
        (void)strtod(ps->p, &end);
        *out = (val){V_NUM, pg__asprintf("%.*s", (int)(end - ps->p), ps->p)};
        ps->p = end;
        return 0;
    }
    return parse_path(out, ps);
}

static int parse_not(val *out, parser *ps)
{
    skip_ws(ps);
    if (*ps->p == '!' && ps->p[1] != '=') {
        val v;
        ps->p++;
        if (parse_not(&v, ps) != 0)
            return -1;
        *out = mk(V_BOOL, truthy(&v) ? "false" : "true");
        free(v.s);
        return 0;
    }
    return parse_primary(out, ps);
}

static int equal(const val *a, const val *b)
{
    if (a->kind == V_NUM && b->kind == V_NUM)
        return strtod(a->s, NULL) == strtod(b->s, NULL);
    return strcasecmp(a->s, b->s) == 0;
}

static int parse_cmp(val *out, parser *ps)
{
    val a, b;
    int ne;

    if (parse_not(&a, ps) != 0)
        return -1;
    skip_ws(ps);
    if (!((ps->p[0] == '=' || ps->p[0] == '!') && ps->p[1] == '=')) {
        *out = a;
        return 0;
    }
    ne = ps->p[0] == '!';
    ps->p += 2;
    if (parse_not(&b, ps) != 0) {
        free(a.s);
        return -1;
    }
    *out = mk(V_BOOL, equal(&a, &b) != ne ? "true" : "false");
    free(a.s);
    free(b.s);
    return 0;
}

/* `&&` (op '&') or `||` (op '|') over `next`, giving the deciding operand as Actions does. */
static int parse_chain(val *out, parser *ps, char op, int (*next)(val *, parser *))
{
    if (next(out, ps) != 0)
        return -1;
    for (;;) {
        val b;
        skip_ws(ps);
        if (!(ps->p[0] == op && ps->p[1] == op))
            return 0;
        ps->p += 2;
        if (next(&b, ps) != 0)
            return -1;
        if ((op == '&') == truthy(out)) {
            free(out->s);
            *out = b;
        } else {
            free(b.s);
        }
    }
}

static int parse_and(val *out, parser *ps)
{
    return parse_chain(out, ps, '&', parse_cmp);
}

static int parse_or(val *out, parser *ps)
{
    return parse_chain(out, ps, '|', parse_and);
}

/* Evaluates the expression in [s, s+len). */
static int evaluate(val *out, gha_job *j, const char *s, size_t len)
{
    char *text = pg__asprintf("%.*s", (int)len, s);
    parser ps = {j, text, 0};
    int rc = parse_or(out, &ps);

    if (rc == 0) {
        skip_ws(&ps);
        if (*ps.p) {
            free(out->s);
            rc = fail(&ps, "'%s' is left over in '%s'", ps.p, text);
        }
    }
    free(text);
    return rc;
}

int gha_expand(char **out, gha_job *j, const char *text)
{
    pg_buf b = PG_BUF_INIT;
    const char *p = text, *open;

    while ((open = strstr(p, "${{")) != NULL) {
        const char *close = strstr(open, "}}");
        val v;
        if (!close) {
            pg__buf_clear(&b);
            return gha_fail(j, "expression: '${{' without '}}' in '%s'", text);
        }
        pg__buf_put(&b, p, (size_t)(open - p));
        if (evaluate(&v, j, open + 3, (size_t)(close - open - 3)) != 0) {
            pg__buf_clear(&b);
            return -1;
        }
        pg__buf_puts(&b, v.s);
        free(v.s);
        p = close + 2;
    }
    pg__buf_puts(&b, p);
    *out = b.ptr ? pg__buf_detach(&b) : pg__strdup("");
    return 0;
}

int gha_condition(int *truth, gha_job *j, const char *expr)
{
    const char *s = expr, *e;
    val v;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    /* if: takes its expression with or without ${{ }}. */
    if (e - s >= 5 && strncmp(s, "${{", 3) == 0 && strncmp(e - 2, "}}", 2) == 0) {
        s += 3;
        e -= 2;
    }
    if (evaluate(&v, j, s, (size_t)(e - s)) != 0)
        return -1;
    *truth = truthy(&v);
    free(v.s);
    /* Without a status function, a condition holds only while the job succeeds (success() && ...). */
    {
        char *text = pg__asprintf("%.*s", (int)(e - s), s);
        if (!strstr(text, "always(") && !strstr(text, "success(") && !strstr(text, "failure(") &&
            !strstr(text, "cancelled("))
            *truth = *truth && strcmp(j->status, "success") == 0;
        free(text);
    }
    return 0;
}
