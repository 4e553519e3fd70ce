/* fuzz_import_pytest.c - libFuzzer target: pytest-benchmark output files (fuzz_import.h). */
#define FUZZ_IMPORT_FORMAT "pytest-benchmark"
#include "fuzz_import.h"
