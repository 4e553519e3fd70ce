/*
 * zip_bomb.c - benchmark (not a test): how long the db fetch zip reader
 * takes to refuse a zip bomb, and how much it writes first. The bomb is a
 * deflate entry of GIB GiB of zeros (about 1 MB per GiB compressed) whose
 * headers declare DECLARED bytes, as a hostile artifact would.
 *
 *   build/bench/bench_zip_bomb [GIB] [DECLARED]     (defaults 3.5 and 100)
 *
 * Prints the archive's size, the time to refuse, the bytes written to the
 * output file and the message.
 */
#include "perfgate/errors.h"
#include "post/artifacts.h"
#include "base/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xFFFF);
    put16(p + 2, v >> 16);
}

/* A one-entry zip of `zeros` deflated zero bytes that declares `declared` bytes. */
static unsigned char *make_bomb(size_t *len, uint64_t zeros, uint32_t declared)
{
    static unsigned char in[1 << 20];
    const char name[] = "perfgate.db";
    size_t nlen = sizeof(name) - 1, cap = 64 << 20, at = 30 + nlen, data, cd;
    unsigned char *z = malloc(cap);
    z_stream s;
    uint64_t left = zeros;

    memset(&s, 0, sizeof(s));
    if (!z || deflateInit2(&s, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    data = at;
    do {
        size_t chunk = left > sizeof(in) ? sizeof(in) : (size_t)left;
        left -= chunk;
        s.next_in = in;
        s.avail_in = (uInt)chunk;
        do {
            s.next_out = z + at;
            s.avail_out = (uInt)(cap - at - 1024);
            deflate(&s, left ? Z_NO_FLUSH : Z_FINISH);
            at = cap - 1024 - s.avail_out;
        } while (s.avail_in);
    } while (left);
    deflateEnd(&s);
    /* Local header, then the central directory and its end, with the declared size in both headers. */
    memset(z, 0, 30);
    put32(z, 0x04034b50);
    put16(z + 4, 20);
    put16(z + 8, 8);
    put32(z + 18, (uint32_t)(at - data));
    put32(z + 22, declared);
    put16(z + 26, (unsigned)nlen);
    memcpy(z + 30, name, nlen);
    cd = at;
    memset(z + at, 0, 46);
    put32(z + at, 0x02014b50);
    put16(z + at + 6, 20);
    put16(z + at + 10, 8);
    put32(z + at + 20, (uint32_t)(cd - data));
    put32(z + at + 24, declared);
    put16(z + at + 28, (unsigned)nlen);
    memcpy(z + at + 46, name, nlen);
    at += 46 + nlen;
    memset(z + at, 0, 22);
    put32(z + at, 0x06054b50);
    put16(z + at + 8, 1);
    put16(z + at + 10, 1);
    put32(z + at + 12, (uint32_t)(at - cd));
    put32(z + at + 16, (uint32_t)cd);
    *len = at + 22;
    return z;
}

int main(int argc, char **argv)
{
    double gib = argc > 1 ? atof(argv[1]) : 3.5;
    uint32_t declared = argc > 2 ? (uint32_t)atol(argv[2]) : 100;
    char path[] = "/tmp/perfgate-zip-bomb-XXXXXX";
    size_t len = 0;
    unsigned char *bomb = make_bomb(&len, (uint64_t)(gib * (1 << 30)), declared);
    struct stat st;
    int64_t t0;
    int fd, err;

    if (!bomb || (fd = mkstemp(path)) < 0) {
        fprintf(stderr, "zip_bomb: cannot prepare the bomb\n");
        return 2;
    }
    unlink(path);
    t0 = pg__mono_ns();
    err = pg_zip_extract_single(NULL, fd, bomb, len);
    fstat(fd, &st);
    printf("bomb: %.1f MB deflating to %.2f GiB, declaring %u bytes: %s after %.2f ms, %lld bytes written (%s)\n",
           (double)len / 1e6, gib, declared, err ? "refused" : "ACCEPTED", (double)(pg__mono_ns() - t0) / 1e6,
           (long long)st.st_size, err ? pg_error_last() : "-");
    close(fd);
    free(bomb);
    return err ? 0 : 1;
}
