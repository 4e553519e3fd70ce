/* fuzz_import_gbench.c - libFuzzer target: google-benchmark output files (fuzz_import.h). */
#define FUZZ_IMPORT_FORMAT "google-benchmark"
#include "fuzz_import.h"
