import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { invalidRequest, payloadTooLarge, unsupportedMediaType } from '../../errors.js';

/**
 * Reads a JSON body, or an HTML body as `{html}` (the raw-HTML shortcut). The size limit is enforced
 * while reading (and up front from Content-Length), so an oversized body is never held in memory.
 */
export async function readRenderBody(ctx: Context, maxBytes: number): Promise<unknown> {
  const type = ctx.request.type.trim().toLowerCase(); // media types are case-insensitive (RFC 9110)
  if (type !== 'application/json' && type !== 'text/html') throw unsupportedMediaType(ctx.get('Content-Type') || undefined);
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: maxBytes, length: ctx.get('Content-Length') || undefined, encoding: 'utf-8' });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw payloadTooLarge(maxBytes);
    throw invalidRequest(`could not read the request body: ${(err as Error).message}`);
  }
  if (type === 'text/html') return { html: text };
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest('the body is not valid JSON');
  }
}
