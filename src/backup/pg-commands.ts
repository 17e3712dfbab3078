// On PostgreSQL the database is not copied by `pagewatch backup`: PostgreSQL's own pg_dump and
// pg_restore do that best (consistent, online, and they know every type). These are the commands for the
// configured database, with its password left out: pg_dump asks for it, or reads PGPASSWORD or ~/.pgpass.

/** database.url without its password, for commands a user may paste into a shell history or a ticket. */
export function urlWithoutPassword(url: string): string {
  const u = new URL(url);
  u.password = '';
  return u.toString();
}

/** `value` as one shell word (POSIX single quotes). */
function shellWord(value: string): string {
  return `'${value.split("'").join(`'\\''`)}'`;
}

export const DUMP_FILE = 'pagewatch.dump';

export interface PostgresCommands {
  dump: string;
  restore: string;
}

export function postgresCommands(url: string, dumpFile = DUMP_FILE): PostgresCommands {
  const target = shellWord(urlWithoutPassword(url));
  return {
    dump: `pg_dump --format=custom --file=${shellWord(dumpFile)} ${target}`,
    restore: `pg_restore --clean --if-exists --no-owner --dbname=${target} ${shellWord(dumpFile)}`,
  };
}
