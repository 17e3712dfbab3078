// What a render needs from a context of its own: the options a reused warm page cannot take (a device,
// a user agent, a locale, credentials...).
import { devices, type BrowserContextOptions } from 'playwright';
import type { RenderSpec } from '../../domain/render-spec.js';
import { targetOrigin } from './origin-headers.js';
import { deviceScaleFor, viewportFor } from './viewport.js';

/**
 * Options a reused page cannot take: these renders get a single-use context of their own.
 * Undefined means a warm page will do.
 */
export function ownContextOptions(req: RenderSpec): BrowserContextOptions | undefined {
  const needsOwn =
    req.device !== undefined ||
    req.userAgent !== undefined ||
    req.locale !== undefined ||
    req.timezoneId !== undefined ||
    (req.deviceScaleFactor ?? 1) !== 1 ||
    !req.javaScriptEnabled ||
    req.httpCredentials !== undefined ||
    req.blockResources?.includes('websocket') === true; // WebSocket routes are not cleared by unrouteAll
  if (!needsOwn) return undefined;
  const device = req.device ? devices[req.device] : undefined;
  return {
    ...(device && { userAgent: device.userAgent, isMobile: device.isMobile, hasTouch: device.hasTouch }),
    viewport: viewportFor(req),
    deviceScaleFactor: deviceScaleFor(req),
    ...(req.userAgent && { userAgent: req.userAgent }),
    locale: req.locale,
    timezoneId: req.timezoneId,
    javaScriptEnabled: req.javaScriptEnabled,
    // Bound to the target's origin: a redirect or sub-resource elsewhere that asks for credentials
    // gets none (the schema refuses httpCredentials where there is no target origin).
    httpCredentials: req.httpCredentials && { ...req.httpCredentials, origin: targetOrigin(req) },
  };
}
