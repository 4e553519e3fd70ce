/*
 * check.c - one entry of `checks:`: its kind, workload, trace or schedule,
 * and the case a workload builds.
 */
#include "suite/internal.h"

#include "perfgate/errors.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const schedule_keys[] = {"skip_first", "wait", "warmup", "active", "repeat", NULL};
static const char *const kinds[] = {"flops", "ops", "schedule", "memory", NULL};
/* Workload keys that are not kernel parameters. */
static const char *const workload_reserved[] = {"kernel", "device", "range", NULL};

static int param_cmp(const void *a, const void *b)
{
    return strcmp(((const pg_param *)a)->name, ((const pg_param *)b)->name);
}

/* The case a validated workload builds (for expressions), unless `bad`. */
static int workload_case(pg__loader *L, const pg_node *w, const char *check_name, pg_case *wc, int *have, int bad)
{
    if (bad || !L->s->name)
        return -1;
    if (pg_case_from_workload(wc, w, L->s->name, check_name) != 0) {
        pg_case_clear(wc);
        pg__diag_add(L->d, w, "%s", pg_error_last());
        return -1;
    }
    *have = 1;
    return 0;
}

/* A workload that is a program: {command: [PROG, ARGS...], count: blas, timeout: 60s}. */
static int check_command_workload(pg__loader *L, const pg_node *w, const char *check_name, pg_case *wc, int *have)
{
    static const char *const counts[] = {"blas", NULL};
    pg_diags *d = L->d;
    pg_case proto;
    const char *m;
    size_t i;
    int bad = 0;

    memset(&proto, 0, sizeof(proto));
    if (pg__load_command(d, &proto, pg_node_get(w, "command")) != 0)
        bad = 1;
    free(proto.command);
    for (i = 0; i < w->count; i++) {
        const pg_node *key = w->keys[i], *v = w->items[i];
        double t;
        if (pg_node_is(key, "command"))
            continue;
        if (pg_node_is(key, "count")) {
            if (pg__get_enum(d, &m, v, "count", counts, "'blas': the program's BLAS calls") != 0)
                bad = 1;
        } else if (pg_node_is(key, "timeout")) {
            if (pg__get_duration(d, &t, v, "timeout") != 0)
                bad = 1;
        } else {
            pg__diag_add(d, key, "unknown key '%s' in a command workload (command, count, timeout)",
                         key->scalar ? key->scalar : "?");
            bad = 1;
        }
    }
    return workload_case(L, w, check_name, wc, have, bad);
}

/* Validates a check's workload and builds its case (for expressions) into `wc`. */
static int check_workload(pg__loader *L, const pg_node *w, const char *check_name, pg_case *wc, int *have)
{
    pg_diags *d = L->d;
    const pg_node *kn, *dn;
    const char *device = "cpu";
    const pg_kernel *k = NULL;
    size_t i;
    int bad = 0;

    *have = 0;
    if (w->type != PG_NODE_MAP) {
        pg__diag_add(d, w, "workload must be a mapping such as {kernel: sgemm, n: 64}, not %s", pg_node_kind(w));
        return -1;
    }
    if (pg_node_get(w, "command") && !pg_node_get(w, "kernel"))
        return check_command_workload(L, w, check_name, wc, have);
    if ((dn = pg_node_get(w, "device")) != NULL && pg__get_device(d, &device, dn))
        bad = 1;
    kn = pg_node_get(w, "kernel");
    if (!kn) {
        pg__diag_add(d, w, "workload needs 'kernel: NAME'");
        bad = 1;
    } else if (pg__scalar_of(d, kn, "kernel") != 0) {
        bad = 1;
    } else if (!bad && !(k = pg__find_kernel(d, kn, device, dn))) {
        bad = 1;
    }
    for (i = 0; i < w->count; i++) {
        const pg_node *key = w->keys[i], *v = w->items[i];
        pg__pval tmp;
        size_t j;
        if (key->type == PG_NODE_SCALAR && pg__in_list(workload_reserved, key->scalar)) {
            if (!strcmp(key->scalar, "range") && pg__scalar_of(d, v, "range") != 0)
                bad = 1;
            continue;
        }
        if (pg__check_param_name(d, key) != 0 || pg__check_kernel_param(d, k, key) != 0) {
            bad = 1;
            continue;
        }
        /* A list in a workload is one value (e.g. ops: [mul, relu]); each item is still a single value. */
        if (v->type == PG_NODE_SEQ) {
            if (v->count == 0) {
                pg__diag_add(d, v, "parameter '%s' is an empty list", key->scalar);
                bad = 1;
            }
            for (j = 0; j < v->count; j++)
                if (pg__scalar_of(d, v->items[j], "a list item") != 0)
                    bad = 1;
            continue;
        }
        if (pg__canon_value(d, &tmp, v, key->scalar) != 0)
            bad = 1;
        free(tmp.text);
    }
    return workload_case(L, w, check_name, wc, have, bad);
}

static int check_trace(pg__loader *L, const pg_node *n)
{
    struct stat st;
    char *path;
    int ok;

    if (pg__scalar_of(L->d, n, "trace") != 0)
        return -1;
    if (!*n->scalar) {
        pg__diag_add(L->d, n, "trace is empty; give the path of a Chrome/Perfetto JSON trace");
        return -1;
    }
    path = n->scalar[0] == '/' ? pg__strdup(n->scalar) : pg__asprintf("%s/%s", L->dir, n->scalar);
    ok = path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    if (!ok) {
        pg__diag_add(L->d, n, "trace file '%s' not found (paths are relative to the suite file's directory)",
                     n->scalar);
        return -1;
    }
    return 0;
}

static int parse_schedule(pg_diags *d, pg_check *ck, const pg_node *n)
{
    const pg_node *v;
    int64_t *fields[] = {&ck->skip_first, &ck->wait, &ck->warmup, &ck->active, &ck->repeat};
    size_t i;
    int bad = 0;

    if (n->type != PG_NODE_MAP) {
        pg__diag_add(d, n, "schedule must be a mapping such as {wait: 1, warmup: 1, active: 2}, not %s",
                     pg_node_kind(n));
        return -1;
    }
    bad |= pg__keys_known(d, n, schedule_keys, "schedule", NULL, 0);
    for (i = 0; schedule_keys[i]; i++)
        if ((v = pg_node_get(n, schedule_keys[i])) != NULL &&
            pg__get_int(d, fields[i], v, schedule_keys[i], strcmp(schedule_keys[i], "active") ? 0 : 1,
                        1000000) != 0)
            bad = 1;
    if (!pg_node_get(n, "active")) {
        pg__diag_add(d, n, "schedule needs 'active' (the number of steps recorded per window)");
        bad = 1;
    }
    return bad ? -1 : 0;
}

void pg__load_check(pg__loader *L, const pg_node *c)
{
    pg_diags *d = L->d;
    pg_check ck = {0};
    pg_case wc = {0};
    const pg_node *n;
    pg__entry e;
    int bad, have_case = 0;
    pg_check *p;

    if (pg__entry_open(&e, L, &pg__check_entry, c) != 0)
        return;
    bad = e.bad;
    ck.name = (char *)e.name;
    ck.node = c;
    ck.workload = pg_node_get(c, "workload");
    ck.trace = pg_node_get(c, "trace");
    ck.schedule = pg_node_get(c, "schedule");
    ck.expect = pg_node_get(c, "expect");
    n = pg_node_get(c, "kind");
    if (!n) {
        pg__diag_add(d, c, "check '%s' has no 'kind' (flops, ops, schedule or memory)", ck.name);
        return;
    }
    if (pg__get_enum(d, (const char **)&ck.kind, n, "kind", kinds, "flops, ops, schedule or memory") != 0)
        return;
    ck.benchmark = pg_node_get(c, "benchmark");

    /* Which sources of events each kind takes. */
    if (ck.trace && strcmp(ck.kind, "ops") != 0 && strcmp(ck.kind, "memory") != 0 && strcmp(ck.kind, "flops") != 0) {
        pg__diag_add(d, ck.trace, "'trace' applies only to flops, ops and memory checks");
        bad = 1;
    }
    if (ck.benchmark && strcmp(ck.kind, "memory") != 0) {
        pg__diag_add(d, ck.benchmark, "'benchmark' applies only to memory checks");
        bad = 1;
    } else if (ck.benchmark && pg__scalar_of(d, ck.benchmark, "benchmark") != 0) {
        bad = 1;
    }
    if (ck.schedule && strcmp(ck.kind, "schedule") != 0) {
        pg__diag_add(d, ck.schedule, "'schedule' applies only to schedule checks");
        bad = 1;
    }
    if ((n = pg_node_get(c, "steps")) != NULL && strcmp(ck.kind, "schedule") != 0) {
        pg__diag_add(d, n, "'steps' applies only to schedule checks");
        bad = 1;
    } else if (n && pg__get_int(d, &ck.steps, n, "steps", 1, 1000000) != 0) {
        bad = 1;
    }
    if ((!strcmp(ck.kind, "ops") || !strcmp(ck.kind, "flops")) && ck.workload && ck.trace) {
        pg__diag_add(d, ck.trace, "a%s %s check reads either a 'workload' or a 'trace', not both",
                     strcmp(ck.kind, "ops") ? "" : "n", ck.kind);
        bad = 1;
    } else if ((!strcmp(ck.kind, "ops") || !strcmp(ck.kind, "flops")) && !ck.workload && !ck.trace) {
        pg__diag_add(d, c, "%s check '%s' needs a 'workload' to run or a 'trace' to read", ck.kind, ck.name);
        bad = 1;
    } else if (!strcmp(ck.kind, "memory")) {
        if ((ck.workload != NULL) + (ck.trace != NULL) + (ck.benchmark != NULL) != 1) {
            pg__diag_add(d, c, "memory check '%s' needs exactly one of 'workload', 'benchmark' (a benchmark of this "
                               "suite) or 'trace' (a torch.profiler trace with profile_memory=True)",
                         ck.name);
            bad = 1;
        }
    } else if (strcmp(ck.kind, "ops") != 0 && strcmp(ck.kind, "flops") != 0 && !ck.workload) {
        pg__diag_add(d, c, "%s check '%s' needs a 'workload' (e.g. {kernel: sgemm, n: 64})", ck.kind, ck.name);
        bad = 1;
    }
    if (!strcmp(ck.kind, "schedule") && !ck.schedule) {
        pg__diag_add(d, c, "schedule check '%s' needs 'schedule: {wait, warmup, active, repeat}'", ck.name);
        bad = 1;
    }
    if (ck.schedule && !strcmp(ck.kind, "schedule") && parse_schedule(d, &ck, ck.schedule) != 0)
        bad = 1;
    if (ck.trace && strcmp(ck.kind, "schedule") != 0 && check_trace(L, ck.trace) != 0)
        bad = 1;
    if (ck.workload && check_workload(L, ck.workload, ck.name, &wc, &have_case) != 0)
        bad = 1;
    if (!ck.expect) {
        pg__diag_add(d, c, "check '%s' has no 'expect'", ck.name);
        bad = 1;
    } else if (pg__check_expect(d, &ck, ck.expect, have_case ? &wc : NULL) != 0) {
        bad = 1;
    }
    pg_case_clear(&wc);
    if (bad)
        return;
    p = realloc(L->s->checks, (L->s->nchecks + 1) * sizeof(*p));
    if (!p)
        return;
    L->s->checks = p;
    ck.name = pg__strdup(ck.name);
    ck.kind = pg__strdup(ck.kind);
    p[L->s->nchecks++] = ck;
}

/* A program's case: argv, timeout, BLAS counting; no parameters. */
static int command_workload(pg_case *out, const pg_node *w, const pg_node *cmd, const char *suite, const char *name)
{
    const pg_node *t = pg_node_get(w, "timeout");
    size_t i;

    out->suite = pg__strdup(suite);
    out->name = pg__strdup(name);
    out->device = pg__strdup("cpu");
    out->threads = 1;
    out->node = w;
    out->count_blas = 1;
    out->timeout = 60.0;
    if (t && t->scalar && pg_parse_duration(&out->timeout, t->scalar) != 0)
        out->timeout = 60.0;
    out->command = calloc(cmd->count + 1, sizeof(char *));
    for (i = 0; out->command && i < cmd->count; i++)
        if (!(out->command[i] = pg__strdup(cmd->items[i]->scalar ? cmd->items[i]->scalar : "")))
            return pg_error_set(PG_ENOMEM, "out of memory building a workload");
    if (!out->command || pg__case_finish(out) != 0)
        return pg_error_set(PG_ENOMEM, "out of memory building a workload");
    return 0;
}

int pg_case_from_workload(pg_case *out, const pg_node *w, const char *suite, const char *name)
{
    const pg_node *k = pg_node_get(w, "kernel"), *cmd;
    size_t i, n = 0;

    memset(out, 0, sizeof(*out));
    if (!w || w->type != PG_NODE_MAP)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: workload must be a mapping with a 'kernel'",
                            w ? w->file : "?", w ? w->line : 0, w ? w->col : 0);
    if (!k && (cmd = pg_node_get(w, "command")) != NULL && cmd->type == PG_NODE_SEQ && cmd->count > 0)
        return command_workload(out, w, cmd, suite, name);
    if (!k || k->type != PG_NODE_SCALAR)
        return pg_error_set(PG_ESUITE, "%s:%d:%d: workload needs 'kernel: NAME'", w->file, w->line, w->col);
    out->suite = pg__strdup(suite);
    out->name = pg__strdup(name);
    out->kernel = pg__strdup(k->scalar);
    out->device = pg__strdup("cpu");
    out->threads = 1;
    out->node = w;
    out->params = calloc(w->count ? w->count : 1, sizeof(pg_param));
    if (!out->params)
        return pg_error_set(PG_ENOMEM, "out of memory building a workload");
    for (i = 0; i < w->count; i++) {
        const pg_node *key = w->keys[i], *v = w->items[i];
        pg_param *p;
        size_t j;
        int seen = 0;
        if (!key->scalar || strcmp(key->scalar, "kernel") == 0)
            continue;
        if (strcmp(key->scalar, "device") == 0 && v->type == PG_NODE_SCALAR) {
            free(out->device);
            out->device = pg__strdup(v->scalar);
            continue;
        }
        /* Of two equal keys the first counts, as in pg_node_get(). */
        for (j = 0; j < n; j++)
            if (strcmp(out->params[j].name, key->scalar) == 0)
                seen = 1;
        if (seen)
            continue;
        p = &out->params[n];
        p->name = pg__strdup(key->scalar);
        if (v->type == PG_NODE_SCALAR) {
            p->value = pg__strdup(v->scalar);
            p->is_number = !v->quoted && pg__is_number_text(v->scalar, &p->num);
        } else if (v->type == PG_NODE_SEQ) {
            /* A list in a workload is one value: its items joined by commas. */
            pg_buf b = PG_BUF_INIT;
            for (j = 0; j < v->count; j++)
                pg__buf_printf(&b, "%s%s", j ? "," : "", v->items[j]->scalar ? v->items[j]->scalar : "");
            p->value = pg__buf_detach(&b);
        } else {
            p->value = pg__strdup("");
        }
        n++;
    }
    out->nparams = n;
    qsort(out->params, out->nparams, sizeof(pg_param), param_cmp);
    if (pg__case_finish(out) != 0)
        return pg_error_set(PG_ENOMEM, "out of memory building a workload");
    return 0;
}
