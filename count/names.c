/*
 * names.c - naming the function that made a counted call: the symbol whose
 * range holds the return address, from the file's .symtab (so a program
 * needs no -rdynamic), else its .dynsym, else dladdr()'s nearest symbol.
 * C++ names are demangled with the process's own __cxa_demangle when its
 * C++ runtime is loaded (nothing is loaded for it), and lose their
 * parameter list: "lab::Layer::forward" for both overloads, not the
 * mangled text.
 * Called only when the counts are written, never on a BLAS call.
 */
#include "count_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The function containing `addr` in the ELF file `path` mapped at `base`, from .symtab, else .dynsym. */
static int elf_symbol(char *out, size_t len, const char *path, uintptr_t base, uintptr_t addr)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0, pass;
    struct stat st;
    const unsigned char *m;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh;
    size_t i, j;

    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return 0;
    }
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return 0;
    eh = (const Elf64_Ehdr *)m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size)
        goto done;
    sh = (const Elf64_Shdr *)(m + eh->e_shoff);
    /* Symbol values are addresses in the file's own layout: absolute in a fixed executable. */
    if (eh->e_type != ET_EXEC)
        addr -= base;
    for (pass = 0; pass < 2 && !found; pass++) {
        for (i = 0; i < eh->e_shnum && !found; i++) {
            const Elf64_Sym *sym;
            const char *str;
            size_t nsym, strsz;
            if (sh[i].sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) || sh[i].sh_link >= eh->e_shnum ||
                sh[i].sh_offset + sh[i].sh_size > (uint64_t)st.st_size ||
                sh[sh[i].sh_link].sh_offset + sh[sh[i].sh_link].sh_size > (uint64_t)st.st_size)
                continue;
            sym = (const Elf64_Sym *)(m + sh[i].sh_offset);
            nsym = sh[i].sh_size / sizeof(Elf64_Sym);
            str = (const char *)(m + sh[sh[i].sh_link].sh_offset);
            strsz = sh[sh[i].sh_link].sh_size;
            for (j = 0; j < nsym; j++) {
                if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC || sym[j].st_shndx == SHN_UNDEF ||
                    addr < sym[j].st_value || addr >= sym[j].st_value + sym[j].st_size || sym[j].st_name >= strsz)
                    continue;
                snprintf(out, len, "%.*s", (int)strnlen(str + sym[j].st_name, strsz - sym[j].st_name),
                         str + sym[j].st_name);
                found = 1;
                break;
            }
        }
    }
done:
    munmap((void *)m, (size_t)st.st_size);
    return found;
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* Cuts the parameter list (and what follows it: " const", "&") off a demangled name. */
static void drop_parameters(char *s)
{
    char *p = strrchr(s, ')');
    int depth = 0;

    if (!p)
        return;
    for (; p >= s; p--) {
        depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
        if (depth == 0) {
            if (p > s)
                *p = '\0';
            return;
        }
    }
}

/* `name` demangled in place when it is a C++ name and the process has a C++ runtime to demangle it. */
static void demangle(char *name, size_t len)
{
    static demangle_fn fn;
    static int looked;
    char *d;
    int status = -1;

    if (strncmp(name, "_Z", 2) != 0)
        return;
    if (!looked) {
        *(void **)&fn = pg__count_next("__cxa_demangle", NULL);
        looked = 1;
    }
    if (!fn || !(d = fn(name, NULL, NULL, &status)) || status != 0)
        return;
    drop_parameters(d);
    snprintf(name, len, "%s", d);
    free(d);
}

void pg__count_caller_name(char *out, size_t len, void *caller)
{
    Dl_info info;
    uintptr_t addr = (uintptr_t)caller - 1; /* inside the call instruction, not after it */

    if (!caller || !dladdr((void *)addr, &info) || !info.dli_fname) {
        snprintf(out, len, "?");
        return;
    }
    /* The main program's name as dladdr gives it may be relative to a directory left since. */
    if (elf_symbol(out, len, info.dli_fname, (uintptr_t)info.dli_fbase, addr) ||
        elf_symbol(out, len, "/proc/self/exe", (uintptr_t)info.dli_fbase, addr)) {
        demangle(out, len);
    } else if (info.dli_sname) {
        snprintf(out, len, "%s", info.dli_sname);
        demangle(out, len);
    } else {
        /* A stripped library's own functions: its file name (a path would only widen the table) and offset. */
        const char *base = strrchr(info.dli_fname, '/');
        snprintf(out, len, "%s+0x%lx", base ? base + 1 : info.dli_fname,
                 (unsigned long)(addr - (uintptr_t)info.dli_fbase));
    }
}
