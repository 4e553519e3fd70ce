/*
 * fuzz_zip.c - libFuzzer target: the zip reader `perfgate db fetch` runs on
 * a downloaded artifact before anything is moved into place. Every byte is
 * hostile (a zip bomb, lying sizes, a central directory out of bounds): the
 * single file is extracted to an unnamed temporary file, whose size must
 * never pass what the archive declares by more than one inflate chunk.
 */
#include "post/artifacts.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = getenv("TMPDIR");
    char *entry = NULL;
    struct stat st;
    int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR, 0600);

    if (fd < 0)
        return 0;
    (void)pg_zip_extract_single(&entry, fd, data, size);
    /* Nothing past the largest size an archive may declare, plus one 64 KiB chunk. */
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > PG_ARTIFACT_MAX_DB_BYTES + 65536)
        abort();
    free(entry);
    close(fd);
    return 0;
}
