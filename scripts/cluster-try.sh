#!/bin/sh
# A PostgreSQL and a Redis of your own, on this machine's loopback, to try a Hearth cluster (README, "Run as a
# cluster"): no system service, nothing outside DIR. Run it as your own user, not root (PostgreSQL refuses root;
# as root: `runuser -u postgres -- scripts/cluster-try.sh /tmp/hearth-try`).
#
#   scripts/cluster-try.sh [DIR]        start (DIR defaults to ./cluster-try); prints the variables to export
#   scripts/cluster-try.sh stop [DIR]   stop both (DIR is kept: start again to reuse the data; rm -r it to forget)
#
# PGPORT (5432) and REDIS_PORT (6379) choose the ports. It makes the role `hearth` (password `secret`) and the
# database `hearth` it owns, with the C locale Hearth requires. Debian's packages: apt-get install postgresql redis-server
# (their system services need not run).
set -eu

if [ "$(id -u)" = 0 ]; then
  echo "cluster-try: PostgreSQL refuses to run as root. Run this as your own user, or as root:" >&2
  echo "  mkdir -p /tmp/hearth-try && chown postgres /tmp/hearth-try && runuser -u postgres -- $0 /tmp/hearth-try" >&2
  exit 1
fi

action=start
if [ "${1:-}" = stop ]; then action=stop; shift; fi
mkdir -p "${1:-./cluster-try}"
dir=$(cd "${1:-./cluster-try}" && pwd)
pgport=${PGPORT:-5432}
redisport=${REDIS_PORT:-6379}

bindir=${PG_BINDIR:-}
if [ -z "$bindir" ]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "cluster-try: PostgreSQL's server (initdb, pg_ctl) was not found: apt-get install postgresql, or set PG_BINDIR." >&2
  exit 1
fi
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  echo "cluster-try: redis-server or redis-cli was not found: apt-get install redis-server." >&2
  exit 1
fi

if [ "$action" = stop ]; then
  "$bindir/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null 2>&1 || true
  if [ -f "$dir/redis.pid" ]; then
    kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
    while [ -f "$dir/redis.pid" ] && kill -0 "$(cat "$dir/redis.pid")" 2>/dev/null; do sleep 0.1; done
    rm -f "$dir/redis.pid"
  fi
  echo "cluster-try: stopped (data kept in $dir)"
  exit 0
fi

chmod 700 "$dir"
if [ ! -d "$dir/pg" ]; then
  # the superuser is `postgres`, reached only over this directory's socket (mode 0700: you alone); TCP needs a password
  "$bindir/initdb" -D "$dir/pg" -U postgres --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
fi
"$bindir/pg_ctl" -D "$dir/pg" -l "$dir/postgres.log" -w \
  -o "-p $pgport -c listen_addresses=127.0.0.1 -c unix_socket_directories='$dir'" start >/dev/null ||
  { tail -n 20 "$dir/postgres.log" >&2; exit 1; }

psql() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$pgport" -U postgres "$@"; }
if [ -z "$(psql -d postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname = 'hearth'")" ]; then
  psql -d postgres -c "CREATE ROLE hearth LOGIN PASSWORD 'secret'"
fi
if [ -z "$(psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'hearth'")" ]; then
  # owned by hearth, so that Hearth may create its schema and tables; C locale: text compared by code point
  psql -d postgres -c "CREATE DATABASE hearth OWNER hearth TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'"
fi

if ! { [ -f "$dir/redis.pid" ] && kill -0 "$(cat "$dir/redis.pid")" 2>/dev/null; }; then
  redis-server --port "$redisport" --bind 127.0.0.1 --dir "$dir" --daemonize yes --pidfile "$dir/redis.pid" \
    --logfile "$dir/redis.log" --save '' --appendonly no
fi
tries=0
until redis-cli -h 127.0.0.1 -p "$redisport" ping >/dev/null 2>&1; do
  tries=$((tries + 1))
  if [ "$tries" -gt 50 ]; then
    echo "cluster-try: Redis did not answer on 127.0.0.1:$redisport:" >&2
    tail -n 20 "$dir/redis.log" >&2
    exit 1
  fi
  sleep 0.1
done

echo "cluster-try: PostgreSQL on 127.0.0.1:$pgport and Redis on 127.0.0.1:$redisport, data in $dir"
echo "export DATABASE_URL=postgres://hearth:secret@127.0.0.1:$pgport/hearth REDIS_URL=redis://127.0.0.1:$redisport"
