#!/bin/sh
# System packages the test suite needs: Debian's chromium for the dashboard's
# browser tests (Playwright drives /usr/bin/chromium; `playwright install` is never used).
set -e
if [ ! -x /usr/bin/chromium ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
fi
