// Ports for servers a test starts as separate processes (the CLI, PostgreSQL, PgBouncer), which cannot be
// given port 0 and asked back; and for a URL where nothing listens.
import { createServer } from 'node:net';

/** Free TCP ports on 127.0.0.1, all different (the CLI takes a port; a test cannot pass 0 and ask back). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((done, fail) => {
          const s = createServer();
          s.once('error', fail);
          s.listen(0, '127.0.0.1', () => done(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  return ports;
}
