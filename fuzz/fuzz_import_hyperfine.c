/* fuzz_import_hyperfine.c - libFuzzer target: hyperfine output files (fuzz_import.h). */
#define FUZZ_IMPORT_FORMAT "hyperfine"
#include "fuzz_import.h"
