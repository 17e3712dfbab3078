// The selected region, up close: the same area of the previous capture and of this one, side by side
// (one above the other for a wide region), zoomed to the region with a margin, drawn on canvases from the
// images the viewer fetched. A capture with regions opens with its first one selected, so what changed is
// the first thing seen.
import { useEffect, useRef } from '/assets/vendor/preact-hooks.js';
import { html } from '/assets/monitors-app/html.js';
import { useStore } from '/assets/monitors-app/context.js';

/** The crops are at most this tall (CSS px), and never enlarged past this factor. */
const MAX_CROP_HEIGHT = 240;
const MAX_ZOOM = 4;
/** A crop wider than this (width / height) is shown above the other rather than beside it. */
const STACK_ASPECT = 1.6;
const CROP_GAP = 12;

/** The region with a margin around it (a fifth of its larger side, 24 to 80 px), inside the image. */
export function cropOf(r, width, height) {
  const margin = Math.round(Math.min(80, Math.max(24, Math.max(r.width, r.height) / 5)));
  const x = Math.max(0, r.x - margin);
  const y = Math.max(0, r.y - margin);
  return {
    x,
    y,
    width: Math.min(width, r.x + r.width + margin) - x,
    height: Math.min(height, r.y + r.height + margin) - y,
  };
}

/** The crop of `img`: pixels it does not cover stay transparent (the checkerboard behind says so). */
function draw(canvas, img, crop) {
  canvas.width = crop.width;
  canvas.height = crop.height;
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, crop.width, crop.height);
  const w = Math.min(crop.width, img.naturalWidth - crop.x);
  const h = Math.min(crop.height, img.naturalHeight - crop.y);
  if (w > 0 && h > 0) ctx.drawImage(img, crop.x, crop.y, w, h, 0, 0, w, h);
}

async function decoded(url) {
  const img = new Image();
  img.src = await url;
  await img.decode();
  return img;
}

/** Both crops at one scale that fits the pane, and the region's box marked on each. */
function sizeCrops(parts, drawn) {
  if (!drawn || !parts.crops) return;
  const { crop, region } = drawn;
  const stacked = crop.width / crop.height > STACK_ASPECT;
  parts.crops.classList.toggle('stacked', stacked);
  const room = parts.crops.clientWidth - (stacked ? 0 : CROP_GAP);
  const each = stacked ? room : room / 2;
  const maxHeight = Math.min(MAX_CROP_HEIGHT, window.innerHeight * 0.3);
  const scale = Math.min(each / crop.width, maxHeight / crop.height, MAX_ZOOM);
  for (const side of ['before', 'after']) {
    Object.assign(parts[side].style, { width: `${crop.width * scale}px`, height: `${crop.height * scale}px` });
    Object.assign(parts[`mark-${side}`].style, {
      left: `${(region.x - crop.x) * scale}px`,
      top: `${(region.y - crop.y) * scale}px`,
      width: `${Math.max(2, region.width * scale)}px`,
      height: `${Math.max(2, region.height * scale)}px`,
    });
  }
}

/** `onDrawn` is called once the crops of this region are drawn (or could not be). */
export function RegionZoom({ hist, c, index, onDrawn }) {
  const store = useStore();
  const parts = useRef({}).current;
  const drawn = useRef(null);
  const failed = useRef(false);
  const region = c.regions[index];

  useEffect(() => {
    const generation = hist.imageGeneration.peek();
    // Until the new crops are drawn, the ones shown are another region's: say so (and tests wait on it).
    delete parts.crops.dataset.region;
    delete parts.crops.dataset.capture;
    parts.crops.setAttribute('aria-busy', 'true');
    failed.current = false;
    let current = true;
    (async () => {
      try {
        const [before, after] = await Promise.all([
          decoded(store.imageUrl(hist, c.baselineId, 'image')),
          decoded(store.imageUrl(hist, c.id, 'image')),
        ]);
        if (!current || generation !== hist.imageGeneration.peek()) return;
        // Regions are in the union of both images (a page that grew): the crop may pass one image's edge.
        const crop = cropOf(
          region,
          Math.max(before.naturalWidth, after.naturalWidth),
          Math.max(before.naturalHeight, after.naturalHeight),
        );
        draw(parts.before, before, crop);
        draw(parts.after, after, crop);
        for (const canvas of [parts.before, parts.after])
          Object.assign(canvas.dataset, { x: crop.x, y: crop.y, width: crop.width, height: crop.height });
        parts.before.setAttribute('aria-label', `Before: region ${index + 1} in the previous capture, zoomed`);
        parts.after.setAttribute('aria-label', `After: region ${index + 1} in this capture, zoomed`);
        drawn.current = { crop, region };
        sizeCrops(parts, drawn.current);
        Object.assign(parts.crops.dataset, { region: String(index), capture: c.id });
      } catch {
        if (!current) return;
        failed.current = true;
        parts.title.textContent += ' (the images could not be loaded)';
      } finally {
        if (current) {
          parts.crops.removeAttribute('aria-busy');
          onDrawn?.();
        }
      }
    })();
    return () => {
      current = false;
    };
  }, [c.id, index]);

  useEffect(() => {
    if (!('ResizeObserver' in window)) return;
    const observer = new ResizeObserver(() => sizeCrops(parts, drawn.current));
    observer.observe(parts.crops);
    return () => observer.disconnect();
  }, []);

  const part = (name) => (el) => {
    parts[name] = el;
  };
  return html`<div id="region-zoom" class="region-zoom">
    <p id="zoom-title" class="zoom-title" ref=${part('title')}>
      ${`Region ${index + 1} of ${c.regions.length}: x ${region.x}, y ${region.y}, ${region.width} × ${region.height} px`}
    </p>
    <div id="crops" class="crops" ref=${part('crops')}>
      <figure class="crop">
        <figcaption>Before</figcaption>
        <div class="crop-frame">
          <canvas id="crop-before" role="img" aria-label="Before" ref=${part('before')}></canvas>
          <div id="mark-before" class="crop-mark" aria-hidden="true" ref=${part('mark-before')}></div>
        </div>
      </figure>
      <figure class="crop">
        <figcaption>After</figcaption>
        <div class="crop-frame">
          <canvas id="crop-after" role="img" aria-label="After" ref=${part('after')}></canvas>
          <div id="mark-after" class="crop-mark" aria-hidden="true" ref=${part('mark-after')}></div>
        </div>
      </figure>
    </div>
  </div>`;
}
