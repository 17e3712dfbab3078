// The image size caps, where a request's size is known before rendering: the viewport at its scale
// (every capture mode draws it) and a clip. A full page and a selector's element are sized only once
// the page is laid out; the capture cuts those (src/render/capture/image.ts).
import { devices } from 'playwright';
import type { z } from 'zod';
import { humanNumber } from '../../domain/units.js';
import { outputPixels } from '../../render/capture/image-caps.js';

export interface ImageSizeLimits {
  /** Largest width or height of an image, CSS px, every capture mode. */
  maxFullPageHeight: number;
  /** Largest image in output pixels (width × height × scale²). */
  maxImagePixels: number;
}

const DEFAULT_VIEWPORT = { width: 1280, height: 800 };

interface SizeFields {
  viewport?: unknown;
  deviceScaleFactor?: unknown;
  device?: unknown;
  clip?: unknown;
}

const isSize = (v: unknown): v is { width: number; height: number } =>
  v !== null &&
  typeof v === 'object' &&
  typeof (v as { width?: unknown }).width === 'number' &&
  typeof (v as { height?: unknown }).height === 'number';

/** A refinement adding one issue per field over a cap, naming the field and the setting. */
export function imageSizeRules(limits: ImageSizeLimits) {
  const side = (field: string) =>
    `${field} can be at most ${humanNumber(limits.maxFullPageHeight)} px (limits.maxFullPageHeight): give a smaller number.`;
  const pixels = (what: string, w: number, h: number, scale: number) =>
    `${what}, ${w}×${h} px at scale ${scale}, makes ${humanNumber(outputPixels(w, h, scale))} output pixels, over ` +
    `the limit of ${humanNumber(limits.maxImagePixels)} (limits.maxImagePixels): make it smaller or lower deviceScaleFactor.`;

  return (value: SizeFields, ctx: z.RefinementCtx): void => {
    // Read defensively: these run even when a field failed its own check.
    const device =
      typeof value.device === 'string' && Object.hasOwn(devices, value.device) ? devices[value.device] : undefined;
    const scale =
      typeof value.deviceScaleFactor === 'number' ? value.deviceScaleFactor : (device?.deviceScaleFactor ?? 1);
    const viewport = isSize(value.viewport) ? value.viewport : (device?.viewport ?? DEFAULT_VIEWPORT);

    let sidesFit = true;
    for (const axis of ['width', 'height'] as const) {
      if (isSize(value.viewport) && value.viewport[axis] > limits.maxFullPageHeight) {
        ctx.addIssue({ code: 'custom', path: ['viewport', axis], message: side(`viewport.${axis}`) });
        sidesFit = false;
      }
    }
    if (sidesFit && outputPixels(viewport.width, viewport.height, scale) > limits.maxImagePixels) {
      // Name what the caller set: the viewport, else the scale, else the device that brought both.
      const field =
        isSize(value.viewport) || (value.deviceScaleFactor === undefined && !device)
          ? 'viewport'
          : value.deviceScaleFactor !== undefined
            ? 'deviceScaleFactor'
            : 'device';
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: pixels('The viewport', viewport.width, viewport.height, scale),
      });
    }

    if (!isSize(value.clip)) return;
    const { clip } = value;
    let clipFits = true;
    for (const axis of ['width', 'height'] as const) {
      if (clip[axis] > limits.maxFullPageHeight) {
        ctx.addIssue({ code: 'custom', path: ['clip', axis], message: side(`clip.${axis}`) });
        clipFits = false;
      }
    }
    if (clipFits && outputPixels(clip.width, clip.height, scale) > limits.maxImagePixels) {
      ctx.addIssue({ code: 'custom', path: ['clip'], message: pixels('The clip', clip.width, clip.height, scale) });
    }
  };
}
