// Raw TCP conversations with the egress proxy: the bytes a hostile or broken client would send.
import net from 'node:net';
import { until } from './until.js';

export interface RawConversation {
  socket: net.Socket;
  /** Everything received so far. */
  received(): Buffer;
  closed(): boolean;
}

/** Connect to `port` on 127.0.0.1 and send `text`; errors (resets) only end the conversation. */
export async function rawSend(port: number, text: string | Buffer): Promise<RawConversation> {
  const socket = net.connect({ host: '127.0.0.1', port });
  let data = Buffer.alloc(0);
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk]);
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
  });
  await new Promise<void>((done, fail) => {
    socket.once('connect', done);
    socket.once('error', fail);
  });
  socket.write(text);
  return { socket, received: () => data, closed: () => closed };
}

/** The status code of the proxy's answer to `text` (waits for a complete status line). */
export async function rawStatus(port: number, text: string): Promise<number> {
  const conv = await rawSend(port, text);
  try {
    const line = await until(
      `an HTTP status line from the proxy for ${JSON.stringify(text.slice(0, 40))}`,
      () => {
        const m = /^HTTP\/1\.1 (\d{3})/.exec(conv.received().toString('latin1'));
        return m ? Number(m[1]) : conv.closed() && -1;
      },
      30_000,
    );
    if (line === -1) throw new Error(`the proxy closed the connection without an answer to ${JSON.stringify(text)}`);
    return line;
  } finally {
    conv.socket.destroy();
  }
}
