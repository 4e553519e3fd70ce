#!/usr/bin/env bash
# No function in runner/ is over 150 lines unless ci/function-length-allow.txt
# lists it with a reason, and no listed one grew past its recorded length or
# went stale (ci/function_length.py); the check itself still fails on a planted
# long function, a grown or stale entry and a malformed allow-list line
# (ci/test_function_length.py). The build directory argument ($1) is unused:
# the check reads sources only.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 ci/test_function_length.py
python3 ci/function_length.py --top 15
