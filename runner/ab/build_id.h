/*
 * build_id.h - the identity of a build that a gate measures alongside the
 * head, as the gate's decision records it: what the baseline of an
 * interleaved gate was, when no stored run is.
 */
#ifndef PG_AB_BUILD_ID_H
#define PG_AB_BUILD_ID_H

#include "suite/suite.h"
#include "verdict/model.h"

/**
 * Fills `out` for the build `build` (a plugin library, or a directory
 * substituted for {build}) as the cases of `set` matching `filter` (NULL:
 * all) use it: its absolute path; the commit its build recorded
 * (`.perfgate-build-sha` in the directory, as ci/gh/build.sh leaves it),
 * else NULL; and a SHA-256 over what it gives the cases: a library's own
 * digest (`sha256sum LIB`), or for a directory the digest of the listing
 * `cd BUILD && sha256sum FILE...` of the plugin libraries and programs the
 * cases load from it, in path order (NULL when they load none from it).
 * @param[out] out the caller frees its strings.
 * @return 0; PG_ENOTFOUND when `build` does not exist; PG_EIO when a file cannot be read.
 */
int pg_ab_build_identity(pg_base_build *out, const pg_suite_set *set, const char *build, const char *filter);

#endif
