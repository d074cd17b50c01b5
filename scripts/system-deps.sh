#!/usr/bin/env bash
# The Debian packages the tests start for real (`npm test` runs this first; so does .ci/run):
#   chromium      headless browser for the CORS test (packages/server/test/HttpCors.browser.test.ts)
#   redis-server  the fleet's shared state (packages/server/test/Redis.test.ts, examples/fleet, npm run fleet)
#   haproxy       the fleet's load balancer (examples/fleet, npm run fleet)
# Installs what is missing when it can (root with apt-get), else says what to install and fails.
set -euo pipefail

missing=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[system-deps] installing ${missing[*]} (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
else
  echo "[system-deps] missing Debian packages: ${missing[*]}; install them (sudo apt-get install ${missing[*]}) and run again" >&2
  exit 1
fi
