/*
 * scan.c - what a build directory holds that perfgate can measure: plugins
 * (shared libraries whose dynamic symbol table defines
 * perfgate_plugin_entry) and programs (ELF executables). The ELF headers
 * are read from the file, never run; a plugin's benchmarks are listed by
 * loading it in a child process, so a library that crashes or hangs when
 * loaded costs a note, not `perfgate init`.
 */
#include "init/internal.h"

#include "perfgate/errors.h"
#include "perfgate/plugin.h"
#include "plugin/plugin.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_DEPTH 8
#define MAX_FILES 20000
#define MAX_TABLE (64u << 20)   /* a dynamic symbol or string table larger than this is not read */
#define LIST_TIMEOUT_MS 10000

enum elf_kind { ELF_OTHER, ELF_PROGRAM, ELF_LIBRARY, ELF_PLUGIN };

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    ssize_t n = pread(fd, buf, len, (off_t)off);

    return n >= 0 && (size_t)n == len ? 0 : -1;
}

/* Whether the dynamic symbol table defines the plugin entry point. */
static int defines_entry(int fd, const Elf64_Ehdr *eh, uint64_t size)
{
    Elf64_Shdr sh, strsh;
    unsigned i;
    int found = 0;

    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shnum > 4096 ||
        eh->e_shoff > size || (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size - eh->e_shoff)
        return 0;
    for (i = 0; i < eh->e_shnum && !found; i++) {
        Elf64_Sym *syms = NULL;
        char *strs = NULL;
        size_t k, nsyms;
        if (read_at(fd, &sh, sizeof(sh), eh->e_shoff + (uint64_t)i * sizeof(sh)) != 0 || sh.sh_type != SHT_DYNSYM)
            continue;
        if (sh.sh_link >= eh->e_shnum ||
            read_at(fd, &strsh, sizeof(strsh), eh->e_shoff + (uint64_t)sh.sh_link * sizeof(strsh)) != 0)
            return 0;
        if (sh.sh_size > MAX_TABLE || strsh.sh_size > MAX_TABLE || sh.sh_offset > size ||
            sh.sh_size > size - sh.sh_offset || strsh.sh_offset > size || strsh.sh_size > size - strsh.sh_offset)
            return 0;
        nsyms = sh.sh_size / sizeof(Elf64_Sym);
        syms = malloc(nsyms * sizeof(Elf64_Sym) + 1);
        strs = malloc(strsh.sh_size + 1);
        if (syms && strs && read_at(fd, syms, nsyms * sizeof(Elf64_Sym), sh.sh_offset) == 0 &&
            read_at(fd, strs, strsh.sh_size, strsh.sh_offset) == 0) {
            strs[strsh.sh_size] = '\0';
            for (k = 0; k < nsyms && !found; k++)
                found = syms[k].st_name < strsh.sh_size && syms[k].st_shndx != SHN_UNDEF &&
                        strcmp(strs + syms[k].st_name, PG_PLUGIN_ENTRY_SYMBOL) == 0;
        }
        free(syms);
        free(strs);
    }
    return found;
}

/* What an ELF file is: a program has a program interpreter; a library has none. */
static enum elf_kind classify(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    enum elf_kind kind = ELF_OTHER;
    Elf64_Ehdr eh;
    struct stat st;
    unsigned i;

    if (fd < 0)
        return ELF_OTHER;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || read_at(fd, &eh, sizeof(eh), 0) != 0 ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        (eh.e_type != ET_DYN && eh.e_type != ET_EXEC))
        goto out;
    kind = eh.e_type == ET_EXEC ? ELF_PROGRAM : ELF_LIBRARY;
    if (eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 1024)
        for (i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (read_at(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)) != 0)
                break;
            if (ph.p_type == PT_INTERP)
                kind = ELF_PROGRAM;
        }
    if (kind == ELF_LIBRARY && defines_entry(fd, &eh, (uint64_t)st.st_size))
        kind = ELF_PLUGIN;
out:
    close(fd);
    return kind;
}

/* ---- a plugin's benchmarks, listed by a child that loads it --------------- */

/* In the child: one line per benchmark, or "!" and the loader's message. */
static void list_in_child(int wfd, const char *path)
{
    pg_plugin_lib *lib = NULL;
    pg_buf b = PG_BUF_INIT;
    size_t i;
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

    /* What the library prints while it loads is not init's output. */
    if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
    }
    if (pg_plugin_open(&lib, path) != 0) {
        pg__buf_printf(&b, "!%s\n", pg_error_last());
    } else {
        const pg_plugin *t = pg_plugin_table(lib);
        pg__buf_printf(&b, "%s\n", t->name ? t->name : "");
        for (i = 0; i < t->nbenchmarks; i++)
            if (t->benchmarks[i].name)
                pg__buf_printf(&b, "%s\n", t->benchmarks[i].name);
    }
    if (b.ptr && write(wfd, b.ptr, b.len) < 0)
        _exit(1);
    _exit(0);
}

/* Reads the child's answer within LIST_TIMEOUT_MS; kills it when it takes longer. */
static char *collect(int rfd, pid_t pid, int *timed_out)
{
    int64_t deadline = pg__mono_ns() + (int64_t)LIST_TIMEOUT_MS * 1000000;
    pg_buf b = PG_BUF_INIT;
    char chunk[4096];
    int status;

    *timed_out = 0;
    for (;;) {
        struct pollfd p = {rfd, POLLIN, 0};
        int64_t left = (deadline - pg__mono_ns()) / 1000000;
        ssize_t n;
        if (left <= 0 || poll(&p, 1, (int)left) == 0) {
            *timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        n = read(rfd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || b.len > (1u << 20))
            break;
        pg__buf_put(&b, chunk, (size_t)n);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!*timed_out && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        pg__buf_clear(&b);
        return pg__asprintf("!loading it %s", WIFSIGNALED(status) ? "crashed" : "failed");
    }
    return b.ptr ? pg__buf_detach(&b) : pg__strdup("");
}

/* Fills `p` from the plugin at `path`; NULL, or why it cannot be used (caller frees). */
static char *list_benchmarks(pg__init_plugin *p, const char *path)
{
    int fds[2], timed_out = 0;
    char *text, *line, *save = NULL;
    pid_t pid;

    if (pipe(fds) != 0)
        return pg__asprintf("no pipe: %s", strerror(errno));
    fflush(NULL);
    if ((pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
        return pg__asprintf("no child process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        list_in_child(fds[1], path);
    }
    close(fds[1]);
    text = collect(fds[0], pid, &timed_out);
    close(fds[0]);
    if (timed_out) {
        free(text);
        return pg__asprintf("loading it took over %d s", LIST_TIMEOUT_MS / 1000);
    }
    if (text[0] == '!') {
        char *why = pg__strdup(text + 1);
        why[strcspn(why, "\n")] = '\0';
        free(text);
        return why;
    }
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char **grown;
        if (!p->name) {
            p->name = pg__strdup(line);
            continue;
        }
        if (!(grown = realloc(p->benchmarks, (p->n + 1) * sizeof(*grown))))
            break;
        p->benchmarks = grown;
        p->benchmarks[p->n++] = pg__strdup(line);
    }
    free(text);
    return p->n ? NULL : pg__strdup("it defines no benchmark");
}

/* ---- the walk ------------------------------------------------------------ */

typedef struct walk {
    pg__init_found *f;
    const char *root;
    size_t files;
    char **libs;         /* plugin candidates and programs, sorted after the walk */
    size_t nlibs;
} walk;

static int skipped_dir(const char *name)
{
    return name[0] == '.' || strcmp(name, "CMakeFiles") == 0 || strcmp(name, "_deps") == 0;
}

static int add_path(char ***list, size_t *n, const char *rel)
{
    char **grown = realloc(*list, (*n + 1) * sizeof(**list));

    if (!grown)
        return PG_ENOMEM;
    *list = grown;
    (*list)[(*n)++] = pg__strdup(rel);
    return 0;
}

static int visit(walk *w, const char *rel, int depth)
{
    char *dir = rel[0] ? pg__asprintf("%s/%s", w->root, rel) : pg__strdup(w->root);
    DIR *d = opendir(dir);
    struct dirent *e;
    int err = 0;

    free(dir);
    if (!d)
        return 0;
    while (!err && (e = readdir(d)) != NULL && w->files < MAX_FILES) {
        char *r, *full;
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        r = rel[0] ? pg__asprintf("%s/%s", rel, e->d_name) : pg__strdup(e->d_name);
        full = pg__asprintf("%s/%s", w->root, r);
        /* lstat: links are not followed, so a library's versioned links count once and no loop forms. */
        if (lstat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH && !skipped_dir(e->d_name))
                err = visit(w, r, depth + 1);
            else if (S_ISREG(st.st_mode) && (st.st_mode & 0111 || strstr(e->d_name, ".so"))) {
                w->files++;
                err = add_path(&w->libs, &w->nlibs, r);
            }
        }
        free(r);
        free(full);
    }
    closedir(d);
    return err;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void classify_one(pg__init_found *f, const char *root, const char *rel)
{
    char *full = pg__asprintf("%s/%s", root, rel), *why;
    struct stat st;
    enum elf_kind kind = classify(full);

    if (kind == ELF_PROGRAM && stat(full, &st) == 0 && (st.st_mode & 0111)) {
        add_path(&f->programs, &f->nprograms, rel);
    } else if (kind == ELF_PLUGIN) {
        pg__init_plugin p = {pg__strdup(rel), NULL, NULL, 0};
        pg__init_plugin *grown;
        if ((why = list_benchmarks(&p, full)) != NULL) {
            pg__buf_printf(&f->notes, "%s: a perfgate plugin, not used: %s\n", rel, why);
            free(why);
            p.n = 0;
        } else if ((grown = realloc(f->plugins, (f->nplugins + 1) * sizeof(*grown))) != NULL) {
            f->plugins = grown;
            f->plugins[f->nplugins++] = p;
            p.rel = NULL;
            p.name = NULL;
            p.benchmarks = NULL;
        }
        free(p.rel);
        free(p.name);
        while (p.benchmarks && p.n)
            free(p.benchmarks[--p.n]);
        free(p.benchmarks);
    }
    free(full);
}

int pg__init_scan(pg__init_found *out, const char *build_dir)
{
    walk w = {out, build_dir, 0, NULL, 0};
    struct stat st;
    size_t i;
    int err;

    memset(out, 0, sizeof(*out));
    w.f = out;
    if (stat(build_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return pg_error_set(PG_ENOTFOUND, "build directory '%s' does not exist (build first)", build_dir);
    err = visit(&w, "", 0);
    if (!err && w.files >= MAX_FILES)
        pg__buf_printf(&out->notes, "%s: stopped after %d files; name a smaller build directory\n", build_dir,
                       MAX_FILES);
    if (w.nlibs)
        qsort(w.libs, w.nlibs, sizeof(*w.libs), by_name);
    for (i = 0; i < w.nlibs; i++) {
        if (!err)
            classify_one(out, build_dir, w.libs[i]);
        free(w.libs[i]);
    }
    free(w.libs);
    return err ? pg_error_set(err, "out of memory scanning '%s'", build_dir) : 0;
}

void pg__init_found_clear(pg__init_found *f)
{
    size_t i, k;

    for (i = 0; i < f->nplugins; i++) {
        for (k = 0; k < f->plugins[i].n; k++)
            free(f->plugins[i].benchmarks[k]);
        free(f->plugins[i].benchmarks);
        free(f->plugins[i].rel);
        free(f->plugins[i].name);
    }
    free(f->plugins);
    for (i = 0; i < f->nprograms; i++)
        free(f->programs[i]);
    free(f->programs);
    pg__buf_clear(&f->notes);
    memset(f, 0, sizeof(*f));
}
