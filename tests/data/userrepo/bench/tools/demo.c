/* demo.c - filters a second of noise four times through ten low-pass sections and prints its energy. */
#include "mylib.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    enum { N = 48000, SECTIONS = 10 };
    mylib_biquad s[SECTIONS];
    float *x = malloc(N * sizeof(*x));
    double energy = 0;
    unsigned seed = 1;
    size_t i;

    if (!x)
        return 1;
    for (i = 0; i < SECTIONS; i++)
        s[i] = mylib_lowpass(0.05 + 0.01 * (double)i, 0.707);
    for (i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)((seed >> 16) & 0x7fff) / 16384.0f - 1.0f;
    }
    for (i = 0; i < 4; i++)
        mylib_filter(x, N, s, SECTIONS);
    for (i = 0; i < N; i++)
        energy += (double)x[i] * x[i];
    printf("energy %.6g\n", energy);
    free(x);
    return 0;
}
