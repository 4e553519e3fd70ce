/*
 * fingerprint.h - what machine a run was measured on.
 *
 * The fingerprint is a JSON object (CPU, cores, governor, kernel, BLAS, ...).
 * Its identity hash covers only the fields that make timings comparable
 * (CPU model, online cores, BLAS core type, OPENBLAS_CORETYPE), so a kernel
 * update or a new hostname does not orphan a baseline.
 */
#ifndef PG_FINGERPRINT_H
#define PG_FINGERPRINT_H

/**
 * Reads the current machine.
 * @param[out] out_json the fingerprint as a JSON object (caller frees)
 * @param[out] out_hash 16 hex digits of its identity hash (caller frees)
 */
int pg_fingerprint_read(char **out_json, char **out_hash);

/** The identity hash of `text` as fingerprints spell it: 16 hex digits (caller frees; NULL on no memory). */
char *pg_fingerprint_hash(const char *text);

/** Noise hazards seen now, one per line ("governor is powersave ..."); caller frees. */
int pg_fingerprint_hazards(char **out_text, int requested_threads);

#endif
