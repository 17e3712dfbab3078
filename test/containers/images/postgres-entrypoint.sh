#!/bin/sh
# initdb on first start (as the official image does), then PostgreSQL in the foreground as PID 1.
set -eu
user=${POSTGRES_USER:-postgres}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  initdb --username="$user" --auth=trust --encoding=UTF8 -D "$PGDATA" >/dev/null
  printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf 'host all all all trust\n' >>"$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    postgres --single -D "$PGDATA" postgres <<SQL >/dev/null
CREATE DATABASE "$POSTGRES_DB" OWNER "$user";
SQL
  fi
fi
exec postgres -D "$PGDATA" -p "${PGPORT:-5432}" "$@"
