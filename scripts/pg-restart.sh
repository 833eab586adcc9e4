#!/usr/bin/env bash
# Restarts the cluster started by pg-start.sh (same $ADCP_PG_STATE): `pg_ctl restart -m fast`,
# which ends every open connection, as a database restart in production would.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state=${ADCP_PG_STATE:-$root/.tmp/pg.env}
# shellcheck disable=SC1090
. "$state"
if [ "$PG_RUNAS" = postgres ] && [ "$(id -u)" = 0 ]; then
  runuser -u postgres -- "$PG_BINDIR/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -m fast -w -t 60 restart >&2
else
  "$PG_BINDIR/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -m fast -w -t 60 restart >&2
fi
