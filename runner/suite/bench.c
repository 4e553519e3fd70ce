/*
 * bench.c - one entry of `benchmarks:`: its source of work (kernel, plugin
 * or command), the settings only some sources take, and its parameters.
 * A benchmark with any error is not expanded, which keeps errors from
 * cascading.
 */
#include "suite/internal.h"

#include <stdlib.h>
#include <string.h>

/*
 * `command:` is an argv list (no shell unless the user writes one). The
 * prototype's array borrows the node's strings; fill_common() copies them
 * into each case and pg__load_benchmark() frees the array.
 */
int pg__load_command(pg_diags *d, pg_case *proto, const pg_node *n)
{
    size_t i;

    if (n->type != PG_NODE_SEQ) {
        pg__diag_add(d, n, "command must be a list of arguments such as [./bench, --size, 64], not %s "
                     "(no shell is involved)", pg_node_kind(n));
        return -1;
    }
    if (n->count == 0) {
        pg__diag_add(d, n, "command is an empty list; give the program and its arguments");
        return -1;
    }
    for (i = 0; i < n->count; i++)
        if (pg__scalar_of(d, n->items[i], "a command argument") != 0)
            return -1;
    if (!(proto->command = calloc(n->count + 1, sizeof(char *))))
        return pg__diag_add(d, n, "out of memory reading the command");
    for (i = 0; i < n->count; i++)
        proto->command[i] = n->items[i]->scalar;
    return 0;
}

/*
 * `trace:` is a path (a trace file or a directory of *.json traces) or
 * {path, step, ops}: each step of the trace is one sample of the step time,
 * and each op matching an `ops` glob gets a series of its self time per step.
 */
static int load_trace(pg_diags *d, pg_case *proto, const pg_node *n)
{
    static const char *const keys[] = {"path", "step", "ops", "metrics", NULL};
    static const char *const metrics[] = {"gpu_busy", "gpu_idle", "host_wait", "kernel_wait", "other_wait", NULL};
    const pg_node *p = n, *v;
    size_t i;

    if (n->type == PG_NODE_MAP) {
        if (pg__keys_known(d, n, keys, "trace", NULL, 0) != 0)
            return -1;
        if (!(p = pg_node_get(n, "path")))
            return pg__diag_add(d, n, "trace needs 'path': the trace file or directory (may hold {trace_dir})");
        if ((v = pg_node_get(n, "step")) != NULL) {
            if (pg__scalar_of(d, v, "trace step") != 0)
                return -1;
            proto->trace_step = v->scalar;
        }
        if ((v = pg_node_get(n, "ops")) != NULL) {
            if (v->type != PG_NODE_SEQ)
                return pg__diag_add(d, v, "trace ops must be a list of op name globs such as [\"aten::mm\"], not %s",
                                    pg_node_kind(v));
            if (!(proto->trace_ops = calloc(v->count + 1, sizeof(char *))))
                return pg__diag_add(d, v, "out of memory");
            for (i = 0; i < v->count; i++) {
                if (pg__scalar_of(d, v->items[i], "a trace op glob") != 0)
                    return -1;
                proto->trace_ops[proto->ntrace_ops++] = v->items[i]->scalar;
            }
        }
        if ((v = pg_node_get(n, "metrics")) != NULL) {
            if (v->type != PG_NODE_SEQ)
                return pg__diag_add(d, v, "trace metrics must be a list (gpu_busy, gpu_idle, host_wait, kernel_wait, "
                                          "other_wait), not %s", pg_node_kind(v));
            if (!(proto->trace_metrics = calloc(v->count + 1, sizeof(char *))))
                return pg__diag_add(d, v, "out of memory");
            for (i = 0; i < v->count; i++) {
                const char *m = NULL;
                if (pg__get_enum(d, &m, v->items[i], "trace metric", metrics,
                                 "gpu_busy, gpu_idle, host_wait, kernel_wait or other_wait") != 0)
                    return -1;
                proto->trace_metrics[proto->ntrace_metrics++] = (char *)m;
            }
        }
    }
    if (pg__scalar_of(d, p, "trace path") != 0)
        return -1;
    proto->trace = p->scalar;
    return 0;
}

/* The settings that only mean something for some sources of work: timeout, metrics, output, count, cold and
   env (the processes a command or plugin starts get it). */
static int kind_settings(pg__loader *L, pg_case *proto, const pg_node *b, const pg__inherit *eff)
{
    pg_diags *d = L->d;
    const pg_node *n;
    int bad = 0;

    proto->timeout = 60.0;
    if ((n = pg_node_get(b, "timeout")) != NULL) {
        /* Plugins run in a child process too, which the timeout bounds. */
        if (!pg_node_get(b, "command") && !pg_node_get(b, "plugin")) {
            pg__diag_add(d, n, "'timeout' applies only to command and plugin benchmarks");
            bad = 1;
        } else if (pg__get_duration(d, &proto->timeout, n, "timeout") != 0)
            bad = 1;
    }
    if ((n = pg_node_get(b, "metrics")) != NULL) {
        const char *m = NULL;
        static const char *const metrics[] = {"json", "none", NULL};
        if (!pg_node_get(b, "command")) {
            pg__diag_add(d, n, "'metrics' applies only to command benchmarks");
            bad = 1;
        } else if (pg__get_enum(d, &m, n, "metrics", metrics, "'json' or 'none'") != 0)
            bad = 1;
        else if (strcmp(m, "json") == 0)
            proto->metrics = (char *)m;
    }
    if ((n = pg_node_get(b, "output")) != NULL) {
        const char *o = NULL;
        static const char *const outputs[] = {"keep", "discard", NULL};
        if (!pg_node_get(b, "command")) {
            pg__diag_add(d, n, "'output' applies only to command benchmarks");
            bad = 1;
        } else if (pg__get_enum(d, &o, n, "output", outputs, "'keep' or 'discard'") != 0)
            bad = 1;
        else
            proto->keep_output = strcmp(o, "keep") == 0;
    }
    if ((n = pg_node_get(b, "count")) != NULL) {
        const char *m = NULL;
        static const char *const counts[] = {"blas", "none", NULL};
        if (!pg_node_get(b, "command")) {
            pg__diag_add(d, n, "'count' applies only to command benchmarks (built-in kernels count their own FLOPs)");
            bad = 1;
        } else if (pg__get_enum(d, &m, n, "count", counts, "'blas' or 'none'") != 0)
            bad = 1;
        else
            proto->count_blas = strcmp(m, "blas") == 0;
    }
    if ((n = pg_node_get(b, "cold")) != NULL) {
        if (pg__get_bool(d, &proto->cold, n, "cold") != 0)
            bad = 1;
        else if (proto->cold && strcmp(eff->device, "cuda") != 0) {
            pg__diag_add(d, n, "'cold' flushes the GPU's L2 cache; it needs 'device: cuda'");
            bad = 1;
        }
    }
    if ((n = pg_node_get(b, "env")) != NULL && !pg_node_get(b, "command") && !pg_node_get(b, "plugin")) {
        pg__diag_add(d, n, "'env' is passed to the processes a command or plugin benchmark starts; this one starts "
                           "none (a built-in kernel runs inside perfgate)");
        bad = 1;
    } else if ((pg_node_get(b, "command") || pg_node_get(b, "plugin")) &&
               pg__merge_env(d, proto, L->defs.env, n) != 0) {
        bad = 1;
    }
    return bad ? -1 : 0;
}

void pg__load_benchmark(pg__loader *L, const pg_node *b)
{
    pg_diags *d = L->d;
    pg_case proto = {0};
    pg__entry e;
    pg__inherit *eff = &e.eff;
    const pg_node *n, *zip;
    const pg_kernel *k = NULL;
    pg__dim *own = NULL, *dims = NULL;
    size_t nown = 0, ndims = 0, i, j;
    const char *sources[3];
    size_t nsources = 0;
    int bad;

    if (pg__entry_open(&e, L, &pg__bench_entry, b) != 0)
        return;
    bad = e.bad;
    proto.node = b;
    proto.suite = L->s->name;
    proto.name = (char *)e.name;
    proto.device = (char *)eff->device;

    /* Exactly one source of work. */
    if (pg_node_get(b, "kernel"))
        sources[nsources++] = "kernel";
    if (pg_node_get(b, "plugin"))
        sources[nsources++] = "plugin";
    if (pg_node_get(b, "command"))
        sources[nsources++] = "command";
    else if (pg_node_get(b, "trace"))
        sources[nsources++] = "trace";
    if (nsources == 0) {
        pg__diag_add(d, b, "benchmark '%s' needs one of 'kernel', 'plugin', 'command' or 'trace'",
                     proto.name);
        bad = 1;
    } else if (nsources > 1) {
        pg__diag_add(d, pg_node_get(b, sources[1]), "benchmark '%s' sets both '%s' and '%s'; use one",
                     proto.name, sources[0], sources[1]);
        bad = 1;
    }
    if ((n = pg_node_get(b, "kernel")) != NULL) {
        if (pg__scalar_of(d, n, "kernel") != 0)
            bad = 1;
        else if (!(k = pg__find_kernel(d, n, eff->device, eff->device_node)))
            bad = 1;
        else
            proto.kernel = n->scalar;
    }
    if ((n = pg_node_get(b, "plugin")) != NULL) {
        if (pg__scalar_of(d, n, "plugin") != 0)
            bad = 1;
        else
            proto.plugin = n->scalar;
        /* The benchmark inside the library defaults to the suite's name for it (docs/plugins.md). */
        if (!pg_node_get(b, "symbol"))
            proto.symbol = proto.name;
    }
    if ((n = pg_node_get(b, "symbol")) != NULL) {
        if (pg__scalar_of(d, n, "symbol") != 0)
            bad = 1;
        else if (!pg_node_get(b, "plugin")) {
            pg__diag_add(d, n, "'symbol' names a benchmark inside a plugin; add 'plugin: PATH'");
            bad = 1;
        } else
            proto.symbol = n->scalar;
    }
    if ((n = pg_node_get(b, "command")) != NULL && pg__load_command(d, &proto, n) != 0)
        bad = 1;
    if ((n = pg_node_get(b, "trace")) != NULL && load_trace(d, &proto, n) != 0)
        bad = 1;

    /* Settings that only mean something for one kind of benchmark. */
    if (kind_settings(L, &proto, b, eff) != 0)
        bad = 1;
    proto.min_run_time = eff->min_run_time;
    proto.max_run_time = eff->max_run_time;
    proto.warmup = eff->warmup;
    proto.min_samples = eff->min_samples;
    proto.threshold = eff->threshold;
    proto.alpha = eff->alpha;
    proto.instruments = eff->instruments;
    proto.exact_threshold = eff->exact_threshold;
    if (eff->tags && eff->tags->type == PG_NODE_SCALAR) {
        proto.tags = calloc(1, sizeof(char *));
        if (proto.tags)
            proto.tags[proto.ntags++] = eff->tags->scalar;
    } else if (eff->tags) {
        proto.tags = calloc(eff->tags->count, sizeof(char *));
        for (i = 0; proto.tags && i < eff->tags->count; i++)
            proto.tags[proto.ntags++] = eff->tags->items[i]->scalar;
    }

    /* Parameters: the defaults', overridden key by key by the benchmark's own. */
    if ((n = pg_node_get(b, "params")) != NULL) {
        if (pg__parse_params(d, &own, &nown, n) != 0)
            bad = 1;
        for (i = 0; i < nown; i++)
            if (pg__check_kernel_param(d, k, own[i].key) != 0)
                bad = 1;
    }
    dims = calloc(nown + L->defs.nparams + 1, sizeof(*dims));
    if (!dims) {
        pg__diag_add(d, b, "out of memory");
        goto cleanup;
    }
    /* `dims` holds shallow copies: `own` and the defaults keep ownership of the values. */
    for (i = 0; i < nown; i++) {
        dims[ndims] = own[i];
        dims[ndims++].owned = 0;
    }
    for (i = 0; i < L->defs.nparams; i++) {
        int overridden = 0;
        for (j = 0; j < nown; j++)
            if (strcmp(own[j].name, L->defs.params[i].name) == 0)
                overridden = 1;
        if (!overridden) {
            dims[ndims] = L->defs.params[i];
            dims[ndims].owned = 0;
            dims[ndims].zip = -1;
            ndims++;
        }
    }
    if ((zip = pg_node_get(b, "zip")) != NULL && pg__parse_zip(d, dims, ndims, zip) != 0)
        bad = 1;
    for (i = 0; i < ndims && i < nown; i++)
        if (pg__check_repeats(d, &dims[i]) != 0)
            bad = 1;
    if (!eff->threads) {
        eff->threads = L->defs.threads ? L->defs.threads : &L->default_threads;
        eff->nthreads = L->defs.threads ? L->defs.nthreads : 1;
    }
    if (bad || !L->s->name)
        goto cleanup;

    pg__expand(L, &proto, dims, ndims, eff->threads, eff->nthreads);

cleanup:
    if (eff->threads != L->defs.threads && eff->threads != &L->default_threads)
        free(eff->threads);
    for (i = 0; i < nown; i++)
        pg__dim_clear(&own[i]);
    free(own);
    free(dims);
    free(proto.command);
    for (i = 0; i < proto.nenv; i++)
        free(proto.env[i]);
    free(proto.env);
    free(proto.trace_ops);
    free(proto.trace_metrics);
    free(proto.tags);
}
