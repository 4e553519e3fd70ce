/*
 * fuzz_file.h - an input as a file, for targets whose entry point reads a
 * path (the importers, GITHUB_EVENT_PATH). The bytes go to an in-memory
 * file (memfd) named through /proc/self/fd, so no input touches the disk.
 */
#ifndef PG_FUZZ_FILE_H
#define PG_FUZZ_FILE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/** The path of a file that holds exactly `data`; the same path on every call. */
static const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];

    if (fd < 0) {
        fd = memfd_create("fuzz-input", 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    return path;
}

#endif
