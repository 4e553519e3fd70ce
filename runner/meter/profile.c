/*
 * profile.c - Callgrind's per-function costs as a profile (profile.h).
 *
 * The reader follows Callgrind's format (valgrind's docs, "Callgrind Format
 * Specification"): `fl=`/`fi=`/`fe=` name the file of the cost lines that
 * follow, `fn=` the function, `cfn=`/`cfi=`/`cob=` the target of the next
 * `calls=` line, whose following cost line is the inclusive cost of those
 * calls. Names may be compressed: `(N) name` the first time, `(N)` after.
 * Positions may be relative (`+3`, `-2`) or repeated (`*`). Only the `Ir`
 * column is read; a cost line may end early (its missing columns are 0).
 */
#include "meter/profile.h"

#include "base/util.h"
#include "perfgate/errors.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading a dump --------------------------------------------------- */

/* Compressed names of one file: id -> name (files) or id -> function index. */
typedef struct idmap {
    char **names;
    long *fn;
    size_t cap;
} idmap;

/* A call edge being summed, keyed "from,to". */
typedef struct edge {
    size_t from, to;
    double count, cost;
} edge;

typedef struct reader {
    pg_profile *p;
    pg_keymap byname;        /* function name -> index in p->fns */
    size_t capfns;
    edge *edges;
    size_t nedges, capedges;
    pg_keymap byedge;        /* "from,to" -> index in edges; keys owned by edge_keys */
    char **edge_keys;
    /* per file */
    idmap files, fns;
    const char *path;
    long lineno;
    int npos, linepos;       /* position columns and which one is the line (-1: none) */
    long lastpos[2];
    int ir;                  /* the Ir column among the events; -1 before `events:` */
    const char *fl;          /* the current function's file (fl=) */
    const char *cost_file;   /* the file of the cost lines that follow (fi=/fe= change it) */
    long cur;                /* current function, -1 before the first fn= */
    long callee;             /* cfn= of the next calls=, -1 */
    double call_count;
    int in_call;             /* the next cost line is the cost of a call */
    int have_total;          /* this file's summary (or totals) line was read */
} reader;

static int bad(const reader *r, const char *what)
{
    return pg_error_set(PG_EFORMAT, "%s:%ld: %s: not a Callgrind output file", r->path, r->lineno, what);
}

static int idmap_grow(idmap *m, size_t id)
{
    size_t cap = m->cap ? m->cap : 64, i;
    char **n;
    long *f;

    if (id < m->cap)
        return 0;
    while (cap <= id)
        cap *= 2;
    if (id > 100000000 || !(n = realloc(m->names, cap * sizeof(*n))))
        return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
    m->names = n;
    if (!(f = realloc(m->fn, cap * sizeof(*f))))
        return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
    m->fn = f;
    for (i = m->cap; i < cap; i++) {
        m->names[i] = NULL;
        m->fn[i] = -1;
    }
    m->cap = cap;
    return 0;
}

static void idmap_clear(idmap *m)
{
    size_t i;

    for (i = 0; i < m->cap; i++)
        free(m->names[i]);
    free(m->names);
    free(m->fn);
    memset(m, 0, sizeof(*m));
}

/*
 * Reads "(N) name", "(N)" or "name" of a `fl=`/`fn=`... line into the
 * file's map: *id (-1 when uncompressed) and *name (borrowed; the map or
 * `text` holds it).
 */
static int compressed(reader *r, idmap *m, const char *text, long *id, const char **name)
{
    char *end;
    long n;

    *id = -1;
    *name = text;
    if (*text != '(')
        return 0;
    n = strtol(text + 1, &end, 10);
    if (end == text + 1 || *end != ')' || n < 0)
        return bad(r, "a compressed name without its number");
    if (idmap_grow(m, (size_t)n) != 0)
        return PG_ENOMEM;
    *id = n;
    end++;
    while (*end == ' ')
        end++;
    if (*end && !m->names[n]) {
        /* Defined once per file; a repeated definition keeps the first (lines already point to it). */
        if (!(m->names[n] = pg__strdup(end)))
            return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
    } else if (!m->names[n]) {
        return bad(r, "a compressed name used before it was defined");
    }
    *name = m->names[n];
    return 0;
}

/* The profile's index of function `name` (a recursion level "foo'2" is foo), added when new. */
static int function_index(reader *r, long *out, const char *name, const char *file)
{
    pg_profile *p = r->p;
    size_t len = strlen(name), k, idx;
    char *plain;

    k = len;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    if (k > 0 && k < len && name[k - 1] == '\'')
        len = k - 1;
    if (!(plain = pg__asprintf("%.*s", (int)len, name)))
        return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
    if (pg__keymap_get(&r->byname, plain, &idx)) {
        free(plain);
        *out = (long)idx;
        if (!p->fns[idx].file && file && strcmp(file, "???") != 0)
            p->fns[idx].file = pg__strdup(file);
        return 0;
    }
    if (p->nfns == r->capfns) {
        size_t cap = r->capfns ? 2 * r->capfns : 64;
        pg_profile_fn *f = realloc(p->fns, cap * sizeof(*f));
        if (!f) {
            free(plain);
            return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
        }
        p->fns = f;
        r->capfns = cap;
    }
    memset(&p->fns[p->nfns], 0, sizeof(p->fns[0]));
    p->fns[p->nfns].name = plain;
    p->fns[p->nfns].file = file && strcmp(file, "???") != 0 ? pg__strdup(file) : NULL;
    if (pg__keymap_put(&r->byname, plain, p->nfns) != 0)
        return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
    *out = (long)p->nfns++;
    return 0;
}

static int fn_line(reader *r, const char *text, int is_call)
{
    const char *name;
    long id, idx;
    int err;

    if ((err = compressed(r, &r->fns, text, &id, &name)) != 0)
        return err;
    /* The same id names the same function in this file: look it up once. */
    if (id >= 0 && r->fns.fn[id] >= 0) {
        idx = r->fns.fn[id];
    } else {
        if ((err = function_index(r, &idx, name, is_call ? NULL : r->fl)) != 0)
            return err;
        if (id >= 0)
            r->fns.fn[id] = idx;
    }
    if (is_call) {
        r->callee = idx;
    } else {
        r->cur = idx;
        r->cost_file = r->fl;
        if (!r->p->fns[idx].file && r->fl && strcmp(r->fl, "???") != 0)
            r->p->fns[idx].file = pg__strdup(r->fl);
    }
    return 0;
}

static int file_line(reader *r, const char *text, int which)
{
    const char *name;
    long id;
    int err = compressed(r, &r->files, text, &id, &name);

    if (err)
        return err;
    /* An uncompressed name is kept in the map's slot 0 of names beyond any id: store it as a fresh entry. */
    if (id < 0) {
        size_t slot = r->files.cap;
        if ((err = idmap_grow(&r->files, slot)) != 0)
            return err;
        if (!(r->files.names[slot] = pg__strdup(name)))
            return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
        name = r->files.names[slot];
    }
    if (which == 'l') {
        r->fl = name;
        r->cost_file = name;
    } else if (which == 'i') {
        r->cost_file = name;
    }
    return 0;
}

static int add_edge(reader *r, size_t from, size_t to, double count, double cost)
{
    char key[48];
    size_t idx;

    snprintf(key, sizeof(key), "%zu,%zu", from, to);
    if (pg__keymap_get(&r->byedge, key, &idx)) {
        r->edges[idx].count += count;
        r->edges[idx].cost += cost;
        return 0;
    }
    if (r->nedges == r->capedges) {
        size_t cap = r->capedges ? 2 * r->capedges : 64;
        edge *e = realloc(r->edges, cap * sizeof(*e));
        char **k = realloc(r->edge_keys, cap * sizeof(*k));
        if (e)
            r->edges = e;
        if (k)
            r->edge_keys = k;
        if (!e || !k)
            return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
        r->capedges = cap;
    }
    if (!(r->edge_keys[r->nedges] = pg__strdup(key)))
        return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
    r->edges[r->nedges] = (edge){from, to, count, cost};
    if (pg__keymap_put(&r->byedge, r->edge_keys[r->nedges], r->nedges) != 0)
        return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
    r->nedges++;
    return 0;
}

/* One position: a number, +N / -N relative to the last, or * for the last. */
static int position(reader *r, const char **s, int col, long *out)
{
    const char *p = *s;
    char *end;
    long v;

    if (*p == '*') {
        v = r->lastpos[col];
        end = (char *)p + 1;
    } else if (*p == '+' || *p == '-') {
        v = r->lastpos[col] + strtol(p, &end, 0);
    } else {
        v = strtol(p, &end, 0);
    }
    if (end == p)
        return bad(r, "a cost line without its position");
    r->lastpos[col] = v;
    *out = v;
    *s = end;
    return 0;
}

static int cost_line(reader *r, const char *s)
{
    long pos = 0, v;
    double ir = 0;
    int i, col;

    for (i = 0; i < r->npos; i++) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (position(r, &s, i < 2 ? i : 1, &v) != 0)
            return PG_EFORMAT;
        if (i == r->linepos)
            pos = v;
    }
    for (col = 0; *s; col++) {
        char *end;
        double c;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '\n' || *s == '\r')
            break;
        c = strtod(s, &end);
        if (end == s)
            return bad(r, "a cost that is not a number");
        if (col == r->ir)
            ir = c;
        s = end;
    }
    if (r->cur < 0)
        return bad(r, "a cost line before any fn=");
    if (r->in_call) {
        r->in_call = 0;
        if (r->callee < 0)
            return bad(r, "calls= without cfn=");
        if (ir > 0 || r->call_count > 0)
            if (add_edge(r, (size_t)r->cur, (size_t)r->callee, r->call_count, ir) != 0)
                return PG_ENOMEM;
        r->callee = -1;
        return 0;
    }
    r->p->fns[r->cur].self += ir;
    /* The first line of the function itself (not of code inlined into it from another file). */
    if (ir > 0 && pos > 0 && r->cost_file == r->fl) {
        pg_profile_fn *f = &r->p->fns[r->cur];
        if (f->line == 0 || pos < f->line)
            f->line = (int)pos;
    }
    return 0;
}

static int header_line(reader *r, const char *line)
{
    char copy[1024], *tok, *save = NULL;
    int i = 0;

    if (strncmp(line, "positions:", 10) == 0) {
        snprintf(copy, sizeof(copy), "%s", line + 10);
        r->npos = 0;
        r->linepos = -1;
        for (tok = strtok_r(copy, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
            if (strcmp(tok, "line") == 0)
                r->linepos = r->npos;
            r->npos++;
        }
        if (r->npos < 1 || r->npos > 2)
            return bad(r, "positions: other than instr and line");
    } else if (strncmp(line, "events:", 7) == 0) {
        snprintf(copy, sizeof(copy), "%s", line + 7);
        r->ir = -1;
        for (tok = strtok_r(copy, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save), i++)
            if (strcmp(tok, "Ir") == 0)
                r->ir = i;
    } else if (strncmp(line, "summary:", 8) == 0 || strncmp(line, "totals:", 7) == 0) {
        const char *s = strchr(line, ':') + 1;
        for (i = 0; *s && i <= r->ir; i++) {
            char *end;
            double c = strtod(s, &end);
            if (end == s)
                break;
            if (i == r->ir) {
                /* Both lines say the same total: the first one read counts. */
                if (!r->have_total)
                    r->p->total += c;
                r->have_total = 1;
                break;
            }
            s = end;
        }
    }
    return 0;
}

static int read_line(reader *r, char *line)
{
    size_t n = strlen(line);

    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (!n || line[0] == '#')
        return 0;
    if ((line[0] >= '0' && line[0] <= '9') || line[0] == '+' || line[0] == '-' || line[0] == '*')
        return cost_line(r, line);
    if (strncmp(line, "fl=", 3) == 0)
        return file_line(r, line + 3, 'l');
    if (strncmp(line, "fi=", 3) == 0 || strncmp(line, "fe=", 3) == 0)
        return file_line(r, line + 3, 'i');
    if (strncmp(line, "cfi=", 4) == 0 || strncmp(line, "cfl=", 4) == 0)
        return file_line(r, line + 4, 'c');
    if (strncmp(line, "fn=", 3) == 0)
        return fn_line(r, line + 3, 0);
    if (strncmp(line, "cfn=", 4) == 0)
        return fn_line(r, line + 4, 1);
    if (strncmp(line, "calls=", 6) == 0) {
        char *end;
        r->call_count = strtod(line + 6, &end);
        if (end == line + 6)
            return bad(r, "calls= without a count");
        r->in_call = 1;
        return 0;
    }
    /* ob=, cob=, jump=, jcnd= (and specifications of later versions): a name, then '='. */
    n = strspn(line, "abcdefghijklmnopqrstuvwxyz");
    if (n && line[n] == '=')
        return 0;
    /* Header lines: a name, then ':'. */
    n = strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
    if (n && line[n] == ':')
        return header_line(r, line);
    return bad(r, "a line that is neither a cost, a name nor a header");
}

static int read_file(reader *r, const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    int err = 0;

    if (!f)
        return pg_error_set(PG_EIO, "%s: %s", path, strerror(errno));
    r->path = path;
    r->lineno = 0;
    r->npos = 1;
    r->linepos = 0;
    r->lastpos[0] = r->lastpos[1] = 0;
    r->ir = 0;
    r->fl = r->cost_file = NULL;
    r->cur = r->callee = -1;
    r->in_call = 0;
    r->have_total = 0;
    while (!err && getline(&line, &cap, f) > 0) {
        r->lineno++;
        err = read_line(r, line);
    }
    if (!err && r->in_call)
        err = bad(r, "calls= without the cost line that follows it");
    free(line);
    fclose(f);
    /* Compressed names are per file. */
    idmap_clear(&r->files);
    idmap_clear(&r->fns);
    return err;
}

/* Inclusive cost: self plus the calls to other functions (a self-call is inside already). */
static int finish(reader *r)
{
    pg_profile *p = r->p;
    size_t i, n = 0;

    for (i = 0; i < p->nfns; i++)
        p->fns[i].incl = p->fns[i].self;
    if (r->nedges && !(p->calls = calloc(r->nedges, sizeof(*p->calls))))
        return pg_error_set(PG_ENOMEM, "out of memory reading a Callgrind profile");
    for (i = 0; i < r->nedges; i++) {
        if (r->edges[i].from == r->edges[i].to)
            continue;
        p->fns[r->edges[i].from].incl += r->edges[i].cost;
        p->calls[n++] = (pg_profile_call){r->edges[i].from, r->edges[i].to, r->edges[i].count, r->edges[i].cost};
    }
    p->ncalls = n;
    /* Frames around the region (glibc's start-up calls itself through several names) would count it twice. */
    for (i = 0; p->total > 0 && i < p->nfns; i++)
        p->fns[i].incl = fmin(p->fns[i].incl, p->total);
    return 0;
}

int pg_profile_read_callgrind(pg_profile *out, const char *const *paths, size_t npaths)
{
    reader r;
    size_t i;
    int err = 0;

    memset(out, 0, sizeof(*out));
    memset(&r, 0, sizeof(r));
    r.p = out;
    for (i = 0; i < npaths && !err; i++)
        err = read_file(&r, paths[i]);
    if (!err)
        err = finish(&r);
    pg__keymap_clear(&r.byname);
    pg__keymap_clear(&r.byedge);
    for (i = 0; i < r.nedges; i++)
        free(r.edge_keys[i]);
    free(r.edge_keys);
    free(r.edges);
    if (err)
        pg_profile_clear(out);
    return err;
}

/* ---- scaling and pruning --------------------------------------------- */

void pg_profile_scale(pg_profile *p, double factor)
{
    size_t i;

    p->total *= factor;
    for (i = 0; i < p->nfns; i++) {
        p->fns[i].self *= factor;
        p->fns[i].incl *= factor;
    }
    for (i = 0; i < p->ncalls; i++) {
        p->calls[i].count *= factor;
        p->calls[i].cost *= factor;
    }
}

typedef struct ranked {
    double weight;
    size_t idx;
} ranked;

static int by_weight_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;

    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int pg_profile_prune(pg_profile *p)
{
    double floor = p->total * PG_PROFILE_MIN_SHARE;
    ranked *rk = p->nfns ? malloc(p->nfns * sizeof(*rk)) : NULL;
    long *map = p->nfns ? malloc(p->nfns * sizeof(*map)) : NULL;
    size_t i, keep = 0, nc = 0;

    if (p->nfns && (!rk || !map)) {
        free(rk);
        free(map);
        return pg_error_set(PG_ENOMEM, "out of memory pruning a profile");
    }
    for (i = 0; i < p->nfns; i++) {
        rk[i].weight = fmax(p->fns[i].self, p->fns[i].incl);
        rk[i].idx = i;
        map[i] = -1;
    }
    qsort(rk, p->nfns, sizeof(*rk), by_weight_desc);
    for (i = 0; i < p->nfns; i++)
        if (i < PG_PROFILE_MAX_FNS && rk[i].weight > 0 && rk[i].weight >= floor)
            map[rk[i].idx] = 0;
    /* Keep the order the dump gave; renumber. */
    for (i = 0; i < p->nfns; i++) {
        if (map[i] < 0) {
            free(p->fns[i].name);
            free(p->fns[i].file);
            p->truncated = 1;
            continue;
        }
        map[i] = (long)keep;
        p->fns[keep++] = p->fns[i];
    }
    p->nfns = keep;
    for (i = 0; i < p->ncalls; i++) {
        pg_profile_call c = p->calls[i];
        if (map[c.from] < 0 || map[c.to] < 0 || c.cost < floor || nc >= PG_PROFILE_MAX_CALLS) {
            p->truncated |= c.cost > 0;
            continue;
        }
        c.from = (size_t)map[c.from];
        c.to = (size_t)map[c.to];
        p->calls[nc++] = c;
    }
    p->ncalls = nc;
    free(rk);
    free(map);
    return 0;
}

/* ---- JSON ------------------------------------------------------------- */

/*
 * {"v":1,"total":T,"truncated":B,"files":[F...],"fns":[[name,file index or
 * -1,line,self,incl]...],"calls":[[from,to,count,cost]...]}
 */
char *pg_profile_to_json(const pg_profile *p)
{
    json_t *o = json_object(), *files = json_array(), *fns = json_array(), *calls = json_array();
    pg_keymap seen = PG_KEYMAP_INIT;
    char *text = NULL;
    size_t i, nfiles = 0;
    int ok = o && files && fns && calls;

    for (i = 0; ok && i < p->nfns; i++) {
        const pg_profile_fn *f = &p->fns[i];
        size_t fi = 0;
        long file = -1;
        if (f->file) {
            if (!pg__keymap_get(&seen, f->file, &fi)) {
                fi = nfiles++;
                ok = pg__keymap_put(&seen, f->file, fi) == 0 && json_array_append_new(files, json_string(f->file)) == 0;
            }
            file = (long)fi;
        }
        ok = ok && json_array_append_new(fns, json_pack("[s, I, i, f, f]", f->name, (json_int_t)file, f->line,
                                                        f->self, f->incl)) == 0;
    }
    for (i = 0; ok && i < p->ncalls; i++)
        ok = json_array_append_new(calls, json_pack("[I, I, f, f]", (json_int_t)p->calls[i].from,
                                                    (json_int_t)p->calls[i].to, p->calls[i].count,
                                                    p->calls[i].cost)) == 0;
    if (ok) {
        json_object_set_new(o, "v", json_integer(1));
        json_object_set_new(o, "total", json_real(p->total));
        json_object_set_new(o, "truncated", json_boolean(p->truncated));
        json_object_set_new(o, "files", files);
        json_object_set_new(o, "fns", fns);
        json_object_set_new(o, "calls", calls);
        files = fns = calls = NULL;
        text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(12));
    }
    pg__keymap_clear(&seen);
    json_decref(files);
    json_decref(fns);
    json_decref(calls);
    json_decref(o);
    return text;
}

static int cost_ok(json_t *v)
{
    return json_is_number(v) && json_number_value(v) >= 0 && isfinite(json_number_value(v));
}

static int fns_from(pg_profile *out, json_t *files, json_t *fns)
{
    json_t *e;
    size_t i;

    if (!json_is_array(fns) || (files && !json_is_array(files)))
        return pg_error_set(PG_EFORMAT, "a profile without its functions");
    if (json_array_size(fns) > PG_PROFILE_MAX_FNS)
        return pg_error_set(PG_EFORMAT, "a profile of %zu functions: more than perfgate keeps (%d)",
                            json_array_size(fns), PG_PROFILE_MAX_FNS);
    if (json_array_size(fns) && !(out->fns = calloc(json_array_size(fns), sizeof(*out->fns))))
        return pg_error_set(PG_ENOMEM, "out of memory reading a profile");
    json_array_foreach(fns, i, e) {
        json_t *name = json_array_get(e, 0), *file = json_array_get(e, 1), *line = json_array_get(e, 2);
        const char *fname;
        if (!json_is_string(name) || !json_is_integer(file) || !json_is_integer(line) ||
            !cost_ok(json_array_get(e, 3)) || !cost_ok(json_array_get(e, 4)))
            return pg_error_set(PG_EFORMAT, "a profile's function %zu is not [name, file, line, self, incl]", i);
        fname = json_integer_value(file) >= 0 ? json_string_value(json_array_get(files, (size_t)json_integer_value(file)))
                                              : NULL;
        if (json_integer_value(file) >= 0 && !fname)
            return pg_error_set(PG_EFORMAT, "a profile's function %zu names no file it lists", i);
        out->fns[i].name = pg__strdup(json_string_value(name));
        out->fns[i].file = fname ? pg__strdup(fname) : NULL;
        out->fns[i].line = (int)json_integer_value(line);
        out->fns[i].self = json_number_value(json_array_get(e, 3));
        out->fns[i].incl = json_number_value(json_array_get(e, 4));
        out->nfns++;
        if (!out->fns[i].name || (fname && !out->fns[i].file))
            return pg_error_set(PG_ENOMEM, "out of memory reading a profile");
    }
    return 0;
}

static int calls_from(pg_profile *out, json_t *calls)
{
    json_t *e;
    size_t i;

    if (!json_is_array(calls))
        return pg_error_set(PG_EFORMAT, "a profile without its calls");
    if (json_array_size(calls) > PG_PROFILE_MAX_CALLS)
        return pg_error_set(PG_EFORMAT, "a profile of %zu calls: more than perfgate keeps (%d)", json_array_size(calls),
                            PG_PROFILE_MAX_CALLS);
    if (json_array_size(calls) && !(out->calls = calloc(json_array_size(calls), sizeof(*out->calls))))
        return pg_error_set(PG_ENOMEM, "out of memory reading a profile");
    json_array_foreach(calls, i, e) {
        json_t *from = json_array_get(e, 0), *to = json_array_get(e, 1);
        if (!json_is_integer(from) || !json_is_integer(to) || json_integer_value(from) < 0 ||
            json_integer_value(to) < 0 || (size_t)json_integer_value(from) >= out->nfns ||
            (size_t)json_integer_value(to) >= out->nfns || !cost_ok(json_array_get(e, 2)) ||
            !cost_ok(json_array_get(e, 3)))
            return pg_error_set(PG_EFORMAT, "a profile's call %zu is not [from, to, count, cost] of its functions",
                                i);
        out->calls[i] = (pg_profile_call){(size_t)json_integer_value(from), (size_t)json_integer_value(to),
                                          json_number_value(json_array_get(e, 2)),
                                          json_number_value(json_array_get(e, 3))};
        out->ncalls++;
    }
    return 0;
}

int pg_profile_from_json(pg_profile *out, const char *text)
{
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    int err;

    memset(out, 0, sizeof(*out));
    if (!json_is_object(o) || json_integer_value(json_object_get(o, "v")) != 1 ||
        !cost_ok(json_object_get(o, "total"))) {
        json_decref(o);
        return pg_error_set(PG_EFORMAT, "not a perfgate profile (version 1)");
    }
    out->total = json_number_value(json_object_get(o, "total"));
    out->truncated = json_is_true(json_object_get(o, "truncated"));
    if ((err = fns_from(out, json_object_get(o, "files"), json_object_get(o, "fns"))) == 0)
        err = calls_from(out, json_object_get(o, "calls"));
    json_decref(o);
    if (err)
        pg_profile_clear(out);
    return err;
}

long pg_profile_find(const pg_profile *p, const char *name)
{
    size_t i;

    for (i = 0; name && i < p->nfns; i++)
        if (strcmp(p->fns[i].name, name) == 0)
            return (long)i;
    return -1;
}

void pg_profile_clear(pg_profile *p)
{
    size_t i;

    if (!p)
        return;
    for (i = 0; i < p->nfns; i++) {
        free(p->fns[i].name);
        free(p->fns[i].file);
    }
    free(p->fns);
    free(p->calls);
    memset(p, 0, sizeof(*p));
}
