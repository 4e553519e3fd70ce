/* mylib.h - cascades of biquad filter sections (direct form I, float). */
#ifndef MYLIB_H
#define MYLIB_H

#include <stddef.h>

typedef struct mylib_biquad {
    float b0, b1, b2, a1, a2;
} mylib_biquad;

/** A low-pass section at `cutoff` (a fraction of the sample rate, 0..0.5) with quality `q`. */
mylib_biquad mylib_lowpass(double cutoff, double q);

/** Filters `x` (n samples) in place through `nsections` sections, one after the other. */
void mylib_filter(float *x, size_t n, const mylib_biquad *sections, size_t nsections);

#endif
