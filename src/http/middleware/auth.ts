// Who is calling: an API key (Authorization: Bearer, or X-API-Key), or — only where the contract
// allows it — nobody (the anonymous converter tier). A key that is sent but unknown or revoked is
// refused even where anonymous calls are allowed: a client with a broken key should hear about it.
import type { Context, Middleware } from 'koa';
import { unauthorized } from '../../errors.js';
import type { ApiKeyStore } from '../../stores/api-keys.js';

export type Principal = { kind: 'key'; keyId: string } | { kind: 'anonymous'; ip: string };

const ANONYMOUS_ROUTES = new Set(['POST /api/pdf', 'POST /api/image']);
/**
 * Aggregate figures for the status page and Prometheus: open to everyone, even with the anonymous tier
 * off, unless auth.publicOperations is false (then any active key may read them).
 */
const OPERATIONS_ROUTES = new Set(['GET /api/status', 'GET /metrics']);
const TOUCH_EVERY_MS = 60_000; // last_used_at is for people; once a minute is precise enough

export function presentedKey(ctx: Context): string | undefined {
  const auth = ctx.get('Authorization');
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (bearer) return bearer[1];
  return ctx.get('X-API-Key').trim() || undefined;
}

export function authenticate(
  keys: Pick<ApiKeyStore, 'findActive' | 'touch'>,
  options: { anonymous: boolean; publicOperations: boolean },
): Middleware {
  const lastTouched = new Map<string, number>();
  /** Sets ctx.state.principal, or throws 401. */
  const identify = async (ctx: Context, key: string | undefined): Promise<void> => {
    if (key !== undefined) {
      const record = await keys.findActive(key);
      if (!record)
        throw unauthorized(
          'The API key is unknown or has been revoked: check that it was copied whole, or ask for a new one.',
        );
      ctx.state.principal = { kind: 'key', keyId: record.id } satisfies Principal;
      const now = Date.now();
      if (now - (lastTouched.get(record.id) ?? 0) > TOUCH_EVERY_MS) {
        lastTouched.set(record.id, now);
        await keys.touch(record.id);
      }
    } else if (options.anonymous && ANONYMOUS_ROUTES.has(`${ctx.method} ${ctx.path}`)) {
      ctx.state.principal = { kind: 'anonymous', ip: ctx.ip } satisfies Principal;
    } else {
      throw unauthorized();
    }
  };
  return async (ctx, next) => {
    // HEAD is answered by the GET route: it must be guarded like it.
    const operations = OPERATIONS_ROUTES.has(`${ctx.method === 'HEAD' ? 'GET' : ctx.method} ${ctx.path}`);
    const key = presentedKey(ctx);
    const open =
      (!ctx.path.startsWith('/api/') && !operations) || (operations && options.publicOperations && key === undefined);
    if (!open) await identify(ctx, key);
    await next();
  };
}
