#!/usr/bin/env bash
# Stops the cluster started by pg-start.sh (same $ADCP_PG_STATE) and deletes its data directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state=${ADCP_PG_STATE:-$root/.tmp/pg.env}
[ -f "$state" ] || { echo "pg-stop: no cluster recorded in $state" >&2; exit 0; }
# shellcheck disable=SC1090
. "$state"
if [ "$PG_RUNAS" = postgres ] && [ "$(id -u)" = 0 ]; then
  runuser -u postgres -- "$PG_BINDIR/pg_ctl" -D "$PG_DATA" -m fast -w stop >&2 || true
else
  "$PG_BINDIR/pg_ctl" -D "$PG_DATA" -m fast -w stop >&2 || true
fi
case "$PG_DATA" in /tmp/adcp-pg.*) rm -rf "$PG_DATA" ;; esac
rm -f "$state"
echo "pg-stop: stopped and removed $PG_DATA" >&2
