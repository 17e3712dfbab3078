// Ports for servers a test starts as separate processes (the CLI, PostgreSQL, PgBouncer), which cannot be
// given port 0 and asked back; and for a URL where nothing listens.
import { createServer } from 'node:net';

/**
 * Below Linux's ephemeral range (32768–60999 by default), from which a listen on port 0 and every outgoing
 * connection take their port: one picked here is not handed to another socket of a test running alongside
 * between the pick and the moment the process binds it (a port 0 pick once lost that race: EADDRINUSE).
 */
const LOWEST = 20_000;
const HIGHEST = 32_767;

/** Free TCP ports on 127.0.0.1, all different (the CLI takes a port; a test cannot pass 0 and ask back). */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) {
    const candidate = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));
    if (!ports.has(candidate) && (await canListen(candidate))) ports.add(candidate);
  }
  return [...ports];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}
