/*
 * sha256.h - SHA-256 (FIPS 180-4) of bytes and of files, as hex: the
 * identity of a build's files in a decision, the same digest `sha256sum`
 * prints, so a user can check it by hand.
 */
#ifndef PG_SHA256_H
#define PG_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct pg_sha256 {
    uint32_t h[8];
    uint64_t len;          /* bytes hashed so far */
    unsigned char buf[64];
    size_t nbuf;
} pg_sha256;

void pg_sha256_init(pg_sha256 *s);
void pg_sha256_update(pg_sha256 *s, const void *data, size_t len);
/** Ends the hash and writes its 64 lowercase hex digits and a NUL to `out`. */
void pg_sha256_hex(pg_sha256 *s, char out[65]);

/**
 * The SHA-256 of the file at `path` as hex.
 * @return 0, or PG_EIO naming the file when it cannot be read.
 */
int pg_sha256_file(char out[65], const char *path);

#endif
