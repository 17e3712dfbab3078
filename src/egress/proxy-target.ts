// What a proxy request asks for, checked before anything is resolved or connected: a port outside
// 1–65535 would otherwise reach net.connect, which throws (ERR_SOCKET_BAD_PORT) instead of failing.

export interface Target {
  host: string;
  port: number;
}

function validPort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** `CONNECT host:port` / `CONNECT [v6]:port`; undefined when malformed or the port is out of range. */
export function connectTarget(authority: string | undefined): Target | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d+)$/.exec(authority ?? '');
  const port = match && validPort(match[2]!);
  return port ? { host: match[1]!, port } : undefined;
}

/** An absolute-form `GET http://host:port/path`; only http (https comes as CONNECT). */
export function forwardTarget(requestTarget: string | undefined): (Target & { path: string }) | undefined {
  let url: URL;
  try {
    url = new URL(requestTarget ?? ''); // ports above 65535 make this throw
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:') return undefined;
  const port = url.port === '' ? 80 : validPort(url.port); // the parser drops a default :80 but keeps :0
  return port ? { host: url.hostname, port, path: `${url.pathname}${url.search}` } : undefined;
}
