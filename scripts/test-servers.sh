#!/usr/bin/env bash
# Installs the real servers the tests start (redis-server, clickhouse-server
# from Debian's packages) and what the SDK suites run on (python3-httpx,
# python3-pytest, nodejs, npm) when they are missing. As root on Debian/Ubuntu it
# runs apt-get; otherwise it prints the exact command and fails.
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
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get install -y ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test servers: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "missing test servers: ${missing[*]}" >&2
echo "install them with: sudo $cmd" >&2
exit 1
