// Where a monitor's ignoreSelectors are in the image about to be taken. The boxes are read with the
// page's JavaScript (getBoundingClientRect), which the page may redefine: a lying page only hides parts
// of its own diff. So whatever it says is made harmless here: scaled with the real device scale, kept
// to finite numbers, clamped to the image and limited in number, since they are stored with the capture.
import type { Page } from 'playwright';
import { renderFailed } from '../../errors.js';
import type { Box } from '../../domain/geometry.js';
import type { Layout, Rect } from './page-geometry.js';

/** More boxes than this are dropped: their areas then count as change, never the other way round. */
export const MAX_MEASURED_BOXES = 1000;

/**
 * The selectors' element boxes moved to the capture's origin (`area`, in document coordinates: the clip,
 * or the viewport at its scroll) and scaled to device pixels, rounded outward and clamped to the image.
 */
export async function measureBoxes(
  page: Page,
  selectors: string[],
  area: Rect,
  layout: Layout,
  scale: number,
): Promise<Box[]> {
  const measured = await page.evaluate(
    ({ selectors, max }) => {
      const rects: unknown[] = [];
      for (const selector of selectors) {
        let elements: NodeListOf<Element>;
        try {
          elements = document.querySelectorAll(selector);
        } catch {
          return { invalid: selector };
        }
        for (let i = 0; i < elements.length && rects.length < max; i++) {
          const r = elements[i]!.getBoundingClientRect();
          // Unary plus always yields a number (the page cannot redefine it), so whatever a faked
          // getBoundingClientRect returns, no more than four numbers a box cross into the service.
          rects[rects.length] = { x: +r.x, y: +r.y, width: +r.width, height: +r.height };
        }
      }
      return { rects };
    },
    { selectors, max: MAX_MEASURED_BOXES },
  );
  if (measured && typeof measured === 'object' && 'invalid' in measured) {
    throw renderFailed(`ignoreSelectors: "${String(measured.invalid)}" is not a valid CSS selector`);
  }
  const rects = Array.isArray(measured?.rects) ? measured.rects.slice(0, MAX_MEASURED_BOXES) : [];
  const image = { width: Math.ceil(area.width * scale), height: Math.ceil(area.height * scale) };
  const boxes: Box[] = [];
  for (const r of rects) {
    if (!isRect(r)) continue;
    // getBoundingClientRect is relative to the layout viewport; its scroll makes it a document position.
    const x0 = (r.x + layout.layoutScroll.x - area.x) * scale;
    const y0 = (r.y + layout.layoutScroll.y - area.y) * scale;
    const box = clampToImage(x0, y0, x0 + r.width * scale, y0 + r.height * scale, image);
    if (box) boxes.push(box);
  }
  return boxes;
}

function isRect(r: unknown): r is Rect {
  if (r === null || typeof r !== 'object') return false;
  const { x, y, width, height } = r as Record<string, unknown>;
  return [x, y, width, height].every((n) => typeof n === 'number' && Number.isFinite(n));
}

/** The part of [x0,x1)×[y0,y1) inside the image, rounded outward to whole pixels; null when empty. */
export function clampToImage(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  image: { width: number; height: number },
): Box | null {
  const left = Math.max(0, Math.floor(x0));
  const top = Math.max(0, Math.floor(y0));
  const right = Math.min(image.width, Math.ceil(x1));
  const bottom = Math.min(image.height, Math.ceil(y1));
  if (!(right > left && bottom > top)) return null; // also a negative width or height
  return { x: left, y: top, width: right - left, height: bottom - top };
}
