// The viewport and scale a render is given. Both come from the request (or its device), never from the
// page: a page's JavaScript can redefine devicePixelRatio, innerWidth and the rest, so only these
// numbers may decide how big an image is.
import { devices } from 'playwright';

const DEFAULT_VIEWPORT = { width: 1280, height: 800 };

/** What of a render request decides its size (a structural type: render requests and stored monitors alike). */
export interface SizedRequest {
  viewport?: { width: number; height: number };
  device?: string;
  deviceScaleFactor?: number;
}

export function viewportFor(req: SizedRequest): { width: number; height: number } {
  return req.viewport ?? (req.device ? devices[req.device]!.viewport : DEFAULT_VIEWPORT);
}

/** The device scale factor the browser context was given: output pixels per CSS pixel. */
export function deviceScaleFor(req: SizedRequest): number {
  return req.deviceScaleFactor ?? (req.device ? devices[req.device]?.deviceScaleFactor : undefined) ?? 1;
}
