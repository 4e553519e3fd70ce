#!/usr/bin/env bash
# Includes point down the layers of ci/layers.txt and form no cycle
# (ci/layers.py; docs/architecture.md), and the check itself still fails on
# a planted upward include, cycle or unmapped file (ci/test_layers.py).
# The build directory argument ($1) is unused: the check reads sources only.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 ci/test_layers.py
python3 ci/layers.py
