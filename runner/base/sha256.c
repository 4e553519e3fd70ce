/* sha256.c - SHA-256 as FIPS 180-4 defines it (sha256.h). */
#include "base/sha256.h"

#include "perfgate/errors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const uint32_t k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void block(pg_sha256 *s, const unsigned char *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
    int i;

    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (i = 0; i < 64; i++) {
        t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
        t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

void pg_sha256_init(pg_sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

    memcpy(s->h, h0, sizeof(h0));
    s->len = 0;
    s->nbuf = 0;
}

void pg_sha256_update(pg_sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;

    s->len += len;
    while (len > 0) {
        size_t n = 64 - s->nbuf < len ? 64 - s->nbuf : len;
        memcpy(s->buf + s->nbuf, p, n);
        s->nbuf += n;
        p += n;
        len -= n;
        if (s->nbuf == 64) {
            block(s, s->buf);
            s->nbuf = 0;
        }
    }
}

void pg_sha256_hex(pg_sha256 *s, char out[65])
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
    int i;

    for (i = 0; i < 8; i++)
        pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    pg_sha256_update(s, pad, npad + 8);
    for (i = 0; i < 8; i++)
        snprintf(out + 8 * i, 9, "%08x", s->h[i]);
}

int pg_sha256_file(char out[65], const char *path)
{
    unsigned char chunk[65536];
    pg_sha256 s;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    out[0] = '\0';
    if (fd < 0)
        return pg_error_set(PG_EIO, "%s: cannot read: %s", path, strerror(errno));
    pg_sha256_init(&s);
    while ((n = read(fd, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            pg_sha256_update(&s, chunk, (size_t)n);
    if (n < 0) {
        int e = errno;
        close(fd);
        return pg_error_set(PG_EIO, "%s: cannot read: %s", path, strerror(e));
    }
    close(fd);
    pg_sha256_hex(&s, out);
    return 0;
}
