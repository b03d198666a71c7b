#!/usr/bin/env bash
# Installs what the tests run besides Go when it is missing: the real
# servers they start (redis-server, clickhouse-server), node with npm
# (test/mcp drives the server with the official TypeScript MCP SDK; the
# TypeScript SDK's suite), Python's httpx and pytest (the Python SDK's
# suite) and chromium (the console's browser test, driven by playwright-core
# with the system browser), all from Debian's packages. As root on Debian/Ubuntu it runs
# apt-get; otherwise it prints the exact command and fails. nats-server is
# built from go.mod by make nats-server.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if ! command -v clickhouse-server >/dev/null 2>&1 && ! command -v clickhouse >/dev/null 2>&1; then
  missing+=(clickhouse-server)
fi
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -c 'import httpx, pytest' >/dev/null 2>&1 || missing+=(python3-httpx python3-pytest)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ -x "${CHROMIUM_BIN:-/usr/bin/chromium}" ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get install -y ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing what the tests need: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "missing for the tests: ${missing[*]}" >&2
echo "install them with: sudo apt-get update && sudo $cmd" >&2
exit 1
