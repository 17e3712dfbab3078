import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { invalidRequest, payloadTooLarge, unsupportedMediaType } from '../../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';

/**
 * Reads a JSON body, or an HTML body as `{html}` (the raw-HTML shortcut, render routes only). The size limit is
 * enforced while reading (and up front from Content-Length), so an oversized body is never held in memory.
 */
export async function readRenderBody(ctx: Context, maxBytes: number): Promise<unknown> {
  const type = mediaType(ctx);
  if (type !== 'application/json' && type !== 'text/html')
    throw unsupportedMediaType(ctx.get('Content-Type') || undefined);
  const text = await readText(ctx, maxBytes);
  return type === 'text/html' ? { html: text } : parseJson(text);
}

/** Reads a JSON body (every route but the render shortcut), with the same limit rules. */
export async function readJsonBody(ctx: Context, maxBytes: number): Promise<unknown> {
  if (mediaType(ctx) !== 'application/json')
    throw unsupportedMediaType(ctx.get('Content-Type') || undefined, 'application/json');
  return parseJson(await readText(ctx, maxBytes));
}

/** Media types are case-insensitive (RFC 9110). */
const mediaType = (ctx: Context) => ctx.request.type.trim().toLowerCase();

async function readText(ctx: Context, maxBytes: number): Promise<string> {
  try {
    return await getRawBody(ctx.req, {
      limit: maxBytes,
      length: ctx.get('Content-Length') || undefined,
      encoding: 'utf-8',
    });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw payloadTooLarge(maxBytes);
    throw invalidRequest(`could not read the request body: ${(err as Error).message}`);
  }
}

function parseJson(text: string): unknown {
  // Checked on the text, before anything walks the value: code that recurses over it stays safe.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw invalidRequest(`the JSON body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest('the body is not valid JSON');
  }
}
