/* mylib.c - cascades of biquad filter sections. */
#include "mylib.h"

#include <math.h>

mylib_biquad mylib_lowpass(double cutoff, double q)
{
    double w = 2.0 * 3.14159265358979323846 * cutoff, alpha = sin(w) / (2.0 * q), c = cos(w);
    double a0 = 1.0 + alpha;
    mylib_biquad s;

    s.b0 = (float)((1.0 - c) / 2.0 / a0);
    s.b1 = (float)((1.0 - c) / a0);
    s.b2 = s.b0;
    s.a1 = (float)(-2.0 * c / a0);
    s.a2 = (float)((1.0 - alpha) / a0);
    return s;
}

/* One section over the whole signal: each output depends on the previous two. */
static void section(float *x, size_t n, const mylib_biquad *s)
{
    float x1 = 0, x2 = 0, y1 = 0, y2 = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        float y = s->b0 * x[i] + s->b1 * x1 + s->b2 * x2 - s->a1 * y1 - s->a2 * y2;
        x2 = x1;
        x1 = x[i];
        y2 = y1;
        y1 = y;
        x[i] = y;
    }
}

void mylib_filter(float *x, size_t n, const mylib_biquad *sections, size_t nsections)
{
    size_t k;

    for (k = 0; k < nsections; k++)
        section(x, n, &sections[k]);
}
