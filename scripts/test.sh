#!/usr/bin/env bash
# Set up (venv, packages, Debian's chromium for the browser tests) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f scripts/ci-deps.sh ]; then bash scripts/ci-deps.sh; fi
[ -x .venv/bin/python ] || python3 -m venv .venv
# the runtime libraries at the versions the recognizer's figures were measured with
.venv/bin/pip install -q --disable-pip-version-check -c deploy/dev-constraints.txt -e '.[test]'
set +e
.venv/bin/python -m pytest "$@"
rc=$?
set -e
# pytest's 5 means no test was collected: that is a failure here, not a pass
exit $rc
