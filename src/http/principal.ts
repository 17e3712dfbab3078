// Who is calling, and the address they called.
import type { Context } from 'koa';
import { trimTrailingSlashes } from '../domain/trim.js';
import { unauthorized } from '../errors.js';
import type { Principal } from './middleware/auth.js';

/** The calling key's id. Routes outside the anonymous tier only run with a key (the auth middleware). */
export function keyIdOf(ctx: Context, why = 'this route needs an API key'): string {
  const principal = ctx.state.principal as Principal | undefined;
  if (principal?.kind !== 'key') {
    const said = why.charAt(0).toUpperCase() + why.slice(1);
    throw unauthorized(`${said}: send it as "Authorization: Bearer <key>" or "X-API-Key: <key>".`);
  }
  return principal.keyId;
}

/**
 * The base of absolute URLs handed to this caller (results, capture images): `publicUrl` when set,
 * else the address the client reached us at (Koa 3's ctx.origin is the Origin request header instead).
 */
export function baseUrlOf(ctx: Context, publicUrl: string): string {
  return trimTrailingSlashes(publicUrl) || `${ctx.protocol}://${ctx.host}`;
}
