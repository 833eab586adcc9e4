#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for tests and development: its own data directory under
# /tmp, a free port on 127.0.0.1 only, trust auth, one database. Installs PostgreSQL from the
# distribution's packages if it is missing (root only, non-interactive).
#
#   eval "$(bash scripts/pg-start.sh)"      # exports ADCP_TEST_PG_URL
#   node scripts/run-tests.mjs pg           # the PostgreSQL tests now run instead of skipping
#   bash scripts/pg-stop.sh                 # stops the cluster and deletes its data directory
#
# The cluster's facts (data dir, port, user, binaries) go to $ADCP_PG_STATE (default
# .tmp/pg.env), read by pg-stop.sh and pg-restart.sh. If that cluster is already running, it is
# reused. Progress goes to stderr; stdout carries only the export lines.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state=${ADCP_PG_STATE:-$root/.tmp/pg.env}
db=${ADCP_PG_DATABASE:-adcp}
log() { echo "pg-start: $*" >&2; }
fail() { log "$*"; exit 1; }

find_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
  return 1
}

if ! bindir=$(find_bindir); then
  [ "$(id -u)" = 0 ] || fail "PostgreSQL is not installed and installing it needs root (apt-get install postgresql)"
  log "installing PostgreSQL from the distribution's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2 || fail "apt-get update failed"
  apt-get install -y -q --no-install-recommends postgresql >&2 || fail "apt-get install postgresql failed"
  bindir=$(find_bindir) || fail "PostgreSQL installed but initdb not found"
fi

# initdb refuses to run as root: the cluster belongs to the postgres OS user then.
if [ "$(id -u)" = 0 ]; then
  runas=postgres
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
  as_owner() { runuser -u postgres -- "$@"; }
else
  runas=$(id -un)
  as_owner() { "$@"; }
fi

print_exports() {
  echo "export ADCP_TEST_PG_URL=postgres://postgres@127.0.0.1:$1/$db"
}

if [ -f "$state" ]; then
  # shellcheck disable=SC1090
  . "$state"
  if [ -n "${PG_DATA:-}" ] && as_owner "$PG_BINDIR/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
    log "reusing the running cluster in $PG_DATA (port $PG_PORT)"
    print_exports "$PG_PORT"
    exit 0
  fi
  # A cluster recorded but no longer running (machine restarted, process killed): start afresh.
  case "${PG_DATA:-}" in /tmp/adcp-pg.*) rm -rf "$PG_DATA" ;; esac
fi

data=$(mktemp -d /tmp/adcp-pg.XXXXXX)
chmod 700 "$data"
[ "$runas" = postgres ] && chown postgres: "$data"
as_owner "$bindir/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale >"$data.initdb.log" 2>&1 \
  || { cat "$data.initdb.log" >&2; fail "initdb failed"; }
rm -f "$data.initdb.log"

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

started=
for attempt in 1 2 3 4 5; do
  port=$(free_port)
  # Sockets only in the data directory; TCP only on loopback. Extra settings: $ADCP_PG_OPTIONS.
  if as_owner "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$data -c max_connections=200 ${ADCP_PG_OPTIONS:-}" \
    start >&2; then
    started=1
    break
  fi
  log "start on port $port failed (attempt $attempt)"; tail -n 5 "$data/server.log" >&2 || true
done
[ -n "$started" ] || fail "PostgreSQL did not start; data dir $data"

mkdir -p "$(dirname "$state")"
cat >"$state" <<STATE
PG_DATA=$data
PG_PORT=$port
PG_BINDIR=$bindir
PG_RUNAS=$runas
STATE

"$bindir/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
  -c "CREATE DATABASE \"$db\"" >&2 || fail "could not create database $db"
log "cluster ready in $data on 127.0.0.1:$port, database $db"
print_exports "$port"
