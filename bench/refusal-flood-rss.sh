#!/usr/bin/env bash
# RSS of `adcp serve` before and after three 20 s floods of refused requests (a wrong bearer
# token, 50 connections, autocannon), with 15 s idle after each: does memory grow per flood and
# stay (a leak), or rise once to the heap's working size (issue 36 item 12, decision 0128)?
#   bash bench/refusal-flood-rss.sh        (from the checkout; needs the dev dependencies)
set -euo pipefail
cd "$(dirname "$0")/.."
export ADCP_SCHEMAS_DIR=${ADCP_SCHEMAS_DIR:-../shared/schemas}
port=${PORT:-3977}
node bin/adcp.js serve --port "$port" --auth-token abcdefghijklmnopqrstuvwx --json >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 6
rss() { awk '/VmRSS/{printf "%.1f MB", $2/1024}' "/proc/$pid/status"; }
body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_creatives","arguments":{}}}'
echo "start: $(rss)"
for round in 1 2 3; do
  npx autocannon -d 20 -c 50 -m POST -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' -H 'authorization: Bearer wrongwrongwrongwrongwrong' \
    -b "$body" "http://127.0.0.1:$port/mcp" 2>&1 | grep -E 'requests in' || true
  echo "after flood $round: $(rss)"
  sleep 15
  echo "15 s idle: $(rss)"
done
