/**
 * Upload overhead: the same page (index.html + 20 assets: stylesheets, images, scripts) rendered to
 * PDF from a fixture server on 127.0.0.1 (`url`, its assets fetched through the egress proxy) and as a
 * multipart upload (`files`, served from memory at the render's own origin), one after the other on one
 * service, sequential renders interleaved so load drifts hit both alike. The goal: an upload adds under
 * 20 ms (p50) over the URL.
 *
 *   npm run bench -- --upload       # prints {"upload": {...}} as its one JSON line
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import { log } from './measure.js';
import { startService } from './service.js';
import { percentile, round1 } from './stats.js';

export interface UploadFigures {
  assets: number;
  uploadBytes: number;
  samples: number;
  urlP50: number;
  uploadP50: number;
  urlP95: number;
  uploadP95: number;
  /** uploadP50 − urlP50, ms. */
  diffP50: number;
  ratioP50: number;
  target: { diffP50UnderMs: number; met: boolean };
}

/** A solid w × h PNG (8-bit RGB), written by hand: the bench needs no image library. */
function png(w: number, h: number, rgb: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3).map((_, i) => rgb[i % 3]!)]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** index.html and 20 assets: 8 stylesheets, 10 images, 2 scripts, some in subfolders. */
export function benchSite(): Map<string, { type: string; body: Buffer }> {
  const files = new Map<string, { type: string; body: Buffer }>();
  const links: string[] = [];
  const body: string[] = ['<h1>Upload bench</h1>'];
  for (let i = 0; i < 8; i++) {
    files.set(`css/s${i}.css`, {
      type: 'text/css',
      body: Buffer.from(
        `.c${i} { color: rgb(${i * 20}, 40, 90); padding: ${i}px; border: 1px solid #ccc; }\n`.repeat(20),
      ),
    });
    links.push(`<link rel="stylesheet" href="css/s${i}.css">`);
    body.push(`<p class="c${i}">Paragraph ${i} styled by its own sheet.</p>`);
  }
  for (let i = 0; i < 10; i++) {
    files.set(`img/i${i}.png`, { type: 'image/png', body: png(64, 64, [i * 25, 100, 200 - i * 10]) });
    body.push(`<img src="img/i${i}.png" width="64" height="64">`);
  }
  for (let i = 0; i < 2; i++) {
    files.set(`js/a${i}.js`, {
      type: 'text/javascript',
      body: Buffer.from(`document.body.insertAdjacentHTML('beforeend', '<p>script ${i} ran</p>');`),
    });
    body.push(`<script src="js/a${i}.js"></script>`);
  }
  const html = `<!doctype html><html><head><meta charset="utf-8">${links.join('')}</head><body>${body.join('')}</body></html>`;
  files.set('index.html', { type: 'text/html; charset=utf-8', body: Buffer.from(html) });
  return files;
}

function serve(files: Map<string, { type: string; body: Buffer }>): Promise<Server> {
  const server = createServer((req, res) => {
    const file = files.get((req.url ?? '/').slice(1).split('?')[0]!);
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function measureUpload(samples: number, warmup: number): Promise<UploadFigures> {
  const files = benchSite();
  const fixture = await serve(files);
  const svc = await startService({ PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]' });
  try {
    const pageUrl = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}/index.html`;
    const form = () => {
      const f = new FormData();
      for (const [path, { type, body }] of files) f.append('files', new Blob([new Uint8Array(body)], { type }), path);
      return f;
    };
    const post = async (body: FormData | string): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${svc.baseUrl}/api/pdf`, {
        method: 'POST',
        ...(typeof body === 'string' && { headers: { 'content-type': 'application/json' } }),
        body,
        signal: AbortSignal.timeout(60_000),
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200)
        throw new Error(`POST /api/pdf -> ${res.status}: ${bytes.toString('utf8').slice(0, 300)}`);
      return performance.now() - t0;
    };
    const byUrl = () => post(JSON.stringify({ url: pageUrl }));
    const byUpload = () => post(form());
    for (let i = 0; i < warmup; i++) {
      await byUrl();
      await byUpload();
    }
    const url: number[] = [];
    const upload: number[] = [];
    log(`upload: ${samples} renders each, from a URL and as an upload of ${files.size - 1} assets`);
    for (let i = 0; i < samples; i++) {
      url.push(await byUrl());
      upload.push(await byUpload());
    }
    const urlP50 = percentile(url, 50);
    const uploadP50 = percentile(upload, 50);
    const diffP50 = uploadP50 - urlP50;
    return {
      assets: files.size - 1,
      uploadBytes: [...files.values()].reduce((n, f) => n + f.body.length, 0),
      samples,
      urlP50: round1(urlP50),
      uploadP50: round1(uploadP50),
      urlP95: round1(percentile(url, 95)),
      uploadP95: round1(percentile(upload, 95)),
      diffP50: round1(diffP50),
      ratioP50: Math.round((uploadP50 / urlP50) * 100) / 100,
      target: { diffP50UnderMs: 20, met: diffP50 < 20 },
    };
  } finally {
    await svc.stop();
    await new Promise((resolve) => fixture.close(resolve));
  }
}
