// Reads a multipart/form-data render request: index.html and its assets as file parts, the options as
// one `options` JSON part or as fields of their own names. Streamed through @fastify/busboy with every
// limit checked while reading, so an oversized upload is refused without being held; the files are kept
// in memory only (never written anywhere) and are gone with the request or its render.
import { Transform, type TransformCallback } from 'node:stream';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { Context } from 'koa';
import { AppError, invalidRequest, payloadTooLarge, type ErrorDetail } from '../../errors.js';
import type { UploadedFile } from '../../domain/render-spec.js';
import { humanBytes } from '../../domain/units.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';
import { contentTypeOf, uploadPath } from '../upload-paths.js';

/** The caller's upload limits, and (anonymous callers) the larger ones an API key would give. */
export interface UploadLimit {
  /** The whole body. */
  maxBytes: number;
  keyMaxBytes?: number;
  maxFiles: number;
  keyMaxFiles?: number;
  maxFileBytes: number;
  /** The options: the `options` part, or each field (the JSON body's limit). */
  maxFieldBytes: number;
}

export interface Upload {
  /** The options as the JSON API would take them (without html: that is index.html). */
  options: Record<string, unknown>;
  /** index.html first (when sent), then the others in the order sent. */
  files: UploadedFile[];
  /** index.html as text (UTF-8); absent when Markdown files make the page (src/http/markdown-request.ts). */
  html?: string;
  /** The `.md` files, in the order sent: they go into index.html at its {{ toHTML "name.md" }} markers. */
  markdown: UploadedFile[];
}

/** A Markdown file of an upload (by its name, as the markers name it). */
export const isMarkdownPath = (path: string) => /\.(md|markdown)$/i.test(path);

export const INDEX_HTML = 'index.html';
/** The fields the upload itself gives: the options must not. */
const FROM_UPLOAD: Record<string, string> = {
  html: 'the HTML of an upload is its index.html file: leave out html',
  url: 'an upload renders its index.html: leave out url, or send JSON to render a URL',
  baseUrl: 'an upload is served at an origin of its own, where its relative URLs resolve: leave out baseUrl',
};

const tooLarge = (message: string, details: ErrorDetail[]) => new AppError('payload_too_large', message, { details });

/**
 * `page`: a render's upload (index.html or Markdown, with its assets). `files`: the PDF tools' upload, any
 * files in the order sent, the options free to name any field.
 */
export type UploadKind = 'page' | 'files';

export function readUpload(ctx: Context, limit: UploadLimit, kind: UploadKind = 'page'): Promise<Upload> {
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (declared > limit.maxBytes) return Promise.reject(payloadTooLarge(limit.maxBytes, limit.keyMaxBytes));
  let busboy: BusboyInstance;
  try {
    busboy = Busboy({
      headers: ctx.req.headers as BusboyHeaders,
      preservePath: true, // the file name is its path in the upload ("css/site.css")
      limits: {
        files: limit.maxFiles,
        fileSize: limit.maxFileBytes,
        fieldSize: limit.maxFieldBytes,
        fields: 1000,
        parts: limit.maxFiles + 1000,
      },
    });
  } catch (err) {
    return Promise.reject(invalidRequest(`The multipart body cannot be read: ${(err as Error).message}.`));
  }

  return new Promise<Upload>((resolve, reject) => {
    const options: Record<string, unknown> = {};
    const optionSources = new Map<string, string>(); // name → where it came from, to refuse it twice
    const files = new Map<string, UploadedFile>();
    let settled = false;
    let pending = 0; // file parts still being read
    let finished = false;

    const fail = (err: AppError) => {
      if (settled) return;
      settled = true;
      // Stop reading: what is left of the body is not wanted (raw-body does the same on its limit).
      ctx.req.unpipe();
      ctx.req.pause();
      busboy.removeAllListeners();
      busboy.on('error', () => undefined);
      reject(err);
    };
    const setOption = (name: string, value: unknown, source: string) => {
      const earlier = optionSources.get(name);
      if (earlier !== undefined) {
        throw invalidRequest(`The option ${name} is given twice (${earlier} and ${source}); give it once.`, [
          { path: name, message: `given twice: ${earlier} and ${source}` },
        ]);
      }
      if (kind === 'page' && FROM_UPLOAD[name])
        throw invalidRequest(`${FROM_UPLOAD[name]}.`, [{ path: name, message: FROM_UPLOAD[name] }]);
      optionSources.set(name, source);
      options[name] = value;
    };
    const takeOptionsPart = (text: string) => {
      if (nestsDeeperThan(text, MAX_JSON_DEPTH))
        throw invalidRequest(`The options part nests deeper than ${MAX_JSON_DEPTH} levels; flatten it.`, [
          { path: 'options', message: 'nests too deep' },
        ]);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw invalidRequest('The options part is not valid JSON; check its quotes, commas and brackets.', [
          { path: 'options', message: 'not valid JSON' },
        ]);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw invalidRequest('The options part must be a JSON object, such as {"format": "A4"}.', [
          { path: 'options', message: 'expected a JSON object' },
        ]);
      for (const [name, value] of Object.entries(parsed)) setOption(name, value, 'in the options part');
    };
    const takeField = (name: string, value: string) => {
      if (name === 'options') return takeOptionsPart(value);
      // A form field is text; "true", "1200" or {"top": "1cm"} mean what they would in JSON.
      let parsed: unknown = value;
      if (!nestsDeeperThan(value, MAX_JSON_DEPTH)) {
        try {
          parsed = JSON.parse(value);
        } catch {
          parsed = value;
        }
      }
      setOption(name, parsed, 'as a form field');
    };
    const guard = (work: () => void) => {
      try {
        work();
      } catch (err) {
        fail(
          err instanceof AppError ? err : invalidRequest(`The upload could not be read: ${(err as Error).message}.`),
        );
      }
    };
    const done = () => {
      if (settled || !finished || pending > 0) return;
      const index = files.get(INDEX_HTML);
      const markdown = [...files.values()].filter((f) => isMarkdownPath(f.path));
      if (kind === 'files') {
        settled = true;
        return resolve({ options, files: [...files.values()], markdown: [] });
      }
      if (!index && markdown.length === 0) {
        return fail(
          invalidRequest(
            `An upload needs an ${INDEX_HTML} file (at its top level), or a Markdown (.md) file: it is the page rendered.`,
            [{ path: INDEX_HTML, message: 'missing: send the page as a file named index.html, or a .md file' }],
          ),
        );
      }
      settled = true;
      resolve({
        options,
        ...(index && { html: index.bytes.toString('utf-8') }),
        files: index ? [index, ...[...files.values()].filter((f) => f !== index)] : [...files.values()],
        markdown,
      });
    };

    busboy.on('field', (name, value, _nameTruncated, valueTruncated) =>
      guard(() => {
        if (valueTruncated) {
          throw tooLarge(`The form field ${name} is larger than ${humanBytes(limit.maxFieldBytes)}; send less.`, [
            { path: name, message: `over ${limit.maxFieldBytes} bytes` },
          ]);
        }
        takeField(name, value);
      }),
    );
    busboy.on('file', (fieldName, stream, filename) => {
      pending++;
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
      });
      stream.on('limit', () =>
        fail(
          tooLarge(
            `The file ${filename} is larger than the limit of ${humanBytes(limit.maxFileBytes)} a file; send a smaller one.`,
            [{ path: filename, message: `over ${limit.maxFileBytes} bytes` }],
          ),
        ),
      );
      stream.on('error', () => undefined); // the request's own error says what went wrong
      stream.on('end', () =>
        guard(() => {
          pending--;
          if (settled) return;
          const bytes = Buffer.concat(chunks, size);
          // `-F options=@options.json` sends the options as a file part: it is still the options.
          if (fieldName === 'options') takeOptionsPart(bytes.toString('utf-8'));
          else addFile(filename, bytes);
          done();
        }),
      );
    });
    const addFile = (name: string, bytes: Buffer) => {
      const named = uploadPath(name);
      if ('refused' in named) {
        throw invalidRequest(`The file name ${JSON.stringify(name)} is refused: ${named.refused}.`, [
          { path: name, message: named.refused },
        ]);
      }
      if (files.has(named.path)) {
        throw invalidRequest(`The file ${named.path} is sent twice; send each path once.`, [
          { path: named.path, message: 'sent twice' },
        ]);
      }
      files.set(named.path, { path: named.path, contentType: contentTypeOf(named.path), bytes });
    };
    busboy.on('filesLimit', () =>
      fail(
        tooLarge(
          `The upload has more than ${limit.maxFiles} files, its limit` +
            (limit.keyMaxFiles !== undefined && limit.keyMaxFiles > limit.maxFiles
              ? `; send fewer, or use an API key, which raises the limit to ${limit.keyMaxFiles}.`
              : '; send fewer.'),
          [{ path: 'files', message: `more than ${limit.maxFiles} files` }],
        ),
      ),
    );
    busboy.on('partsLimit', () => fail(tooLarge('The upload has too many parts; send fewer.', [])));
    busboy.on('fieldsLimit', () => fail(tooLarge('The upload has too many form fields; send fewer.', [])));
    busboy.on('error', (err) =>
      fail(
        invalidRequest(
          `The multipart body could not be read (${(err as Error).message}); it may have been cut off: send it again.`,
          [{ path: '', message: 'incomplete or malformed multipart body' }],
        ),
      ),
    );
    busboy.on('finish', () => {
      finished = true;
      done();
    });

    // The body's size, counted as it arrives: a body without Content-Length (chunked) is held to it too.
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, callback: TransformCallback) {
        received += chunk.length;
        if (received > limit.maxBytes) {
          fail(payloadTooLarge(limit.maxBytes, limit.keyMaxBytes));
          return callback();
        }
        callback(null, chunk);
      },
    });
    // A client that goes away mid-body: nothing was kept but this request's memory, which goes with it.
    ctx.req.once('aborted', () =>
      fail(
        invalidRequest('The request body was cut off before its end; send it again.', [
          { path: '', message: 'cut off' },
        ]),
      ),
    );
    ctx.req.once('error', (err) =>
      fail(invalidRequest(`The request body could not be read (${err.message}); send it again.`)),
    );
    ctx.req.pipe(counter).pipe(busboy);
  });
}
