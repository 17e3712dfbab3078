import { withMarkdownPage } from '../markdown-request.js';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { invalidRequest, payloadTooLarge, unsupportedMediaType } from '../../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';
import { readUpload, type Upload, type UploadLimit } from './multipart.js';

/** The caller's body limit, and (anonymous callers) the larger one an API key would give. */
export interface BodyLimit {
  maxBytes: number;
  keyMaxBytes?: number;
}

/**
 * Reads a JSON body, or an HTML body as `{html}` (the raw-HTML shortcut, render routes only). The size limit is
 * enforced while reading (and up front from Content-Length), so an oversized body is never held in memory.
 */
export async function readRenderBody(ctx: Context, limit: BodyLimit): Promise<unknown> {
  const type = mediaType(ctx);
  if (type !== 'application/json' && type !== 'text/html')
    throw unsupportedMediaType(ctx.get('Content-Type') || undefined);
  const text = await readText(ctx, limit);
  return type === 'text/html' ? { html: text } : parseJson(text);
}

/** The media types a render route takes. */
export const RENDER_MEDIA_TYPES = 'application/json, text/html or multipart/form-data';

/**
 * A render request's body: JSON, HTML (as `{html}`), or an upload (multipart/form-data: index.html and
 * its assets, see multipart.ts), whose options come back as `body` with `html` from index.html, and its
 * files as `upload`. Each kind has its own limits, enforced while reading.
 */
export async function readRenderInput(
  ctx: Context,
  limit: BodyLimit,
  uploadLimit: UploadLimit,
): Promise<{ body: unknown; upload?: Upload }> {
  const type = mediaType(ctx);
  if (type === 'multipart/form-data') {
    const upload = await withMarkdownPage(await readUpload(ctx, uploadLimit));
    return { body: { ...upload.options, html: upload.html }, upload };
  }
  if (type !== 'application/json' && type !== 'text/html')
    throw unsupportedMediaType(ctx.get('Content-Type') || undefined, RENDER_MEDIA_TYPES);
  return { body: await readRenderBody(ctx, limit) };
}

/** Reads a JSON body (every route but the render shortcut), with the same limit rules. */
export async function readJsonBody(ctx: Context, limit: BodyLimit): Promise<unknown> {
  if (mediaType(ctx) !== 'application/json')
    throw unsupportedMediaType(ctx.get('Content-Type') || undefined, 'application/json');
  return parseJson(await readText(ctx, limit));
}

/** Media types are case-insensitive (RFC 9110). */
const mediaType = (ctx: Context) => ctx.request.type.trim().toLowerCase();

async function readText(ctx: Context, { maxBytes, keyMaxBytes }: BodyLimit): Promise<string> {
  try {
    return await getRawBody(ctx.req, {
      limit: maxBytes,
      length: ctx.get('Content-Length') || undefined,
      encoding: 'utf-8',
    });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw payloadTooLarge(maxBytes, keyMaxBytes);
    throw invalidRequest(`The request body could not be read (${(err as Error).message}); send it again.`);
  }
}

function parseJson(text: string): unknown {
  // Checked on the text, before anything walks the value: code that recurses over it stays safe.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw invalidRequest(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays; flatten it.`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest('The body is not valid JSON; check its quotes, commas and brackets.');
  }
}
