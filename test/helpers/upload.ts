// Multipart bodies for upload tests, byte for byte as curl -F sends them (a fixed boundary, each file's
// path in filename=), so a test can cut one short or count its exact length. FormData + fetch is used
// by the tests too; this builder is for what FormData cannot do.
import { PNG } from 'pngjs';

export interface Part {
  name: string;
  /** A file part when given (its path in the upload). */
  filename?: string;
  contentType?: string;
  body: string | Buffer;
}

export const BOUNDARY = '------------------------d41d8cd98f00b204';

/** The whole body: every part, then the closing boundary. */
export function multipartBody(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
    const type = p.contentType ?? (p.filename === undefined ? undefined : 'application/octet-stream');
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`,
      ),
      Buffer.isBuffer(p.body) ? p.body : Buffer.from(p.body),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** File parts named `files`, as `curl -F files=@path;filename=path` sends them. */
export const fileParts = (files: Record<string, string | Buffer>): Part[] =>
  Object.entries(files).map(([filename, body]) => ({ name: 'files', filename, body }));

/** A solid-colour PNG, w × h. */
export function solidPng(w: number, h: number, [r, g, b]: [number, number, number]): Buffer {
  const png = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) png.data.set([r, g, b, 255], i * 4);
  return PNG.sync.write(png);
}

/** FormData of files (path → content) and, optionally, an `options` JSON part. */
export function uploadForm(files: Record<string, string | Buffer>, options?: Record<string, unknown>): FormData {
  const form = new FormData();
  if (options) form.append('options', JSON.stringify(options));
  for (const [path, body] of Object.entries(files))
    form.append('files', new Blob([typeof body === 'string' ? body : new Uint8Array(body)]), path);
  return form;
}
