// The selected region, up close: the same area of the previous capture and of this one, side by side
// (one above the other for a wide region), zoomed to the region with a margin, drawn on canvases from the
// images the viewer fetched; and the slider and the image frames moved onto it. A capture with regions
// opens with its first one selected, so what changed is the first thing seen.
import { decodedImage, imageGeneration } from '/assets/monitors-images.js';
import { $, state } from '/assets/monitors-util.js';

/** The crops are at most this tall (CSS px), and never enlarged past this factor. */
const MAX_CROP_HEIGHT = 240;
const MAX_ZOOM = 4;
/** A crop wider than this (width / height) is shown above the other rather than beside it. */
const STACK_ASPECT = 1.6;

function selectedCapture() {
  const hist = state.history;
  return hist?.captures.find((c) => c.id === hist.selectedId) ?? null;
}

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

/** Selects region `index` of the capture shown (null: none): its row, its crops, the views on it. */
export function selectRegion(index) {
  const hist = state.history;
  const c = selectedCapture();
  const region = index === null ? null : c?.regions?.[index];
  for (const row of $('regions').querySelectorAll('li.region')) {
    const on = region && Number(row.dataset.index) === index;
    row.classList.toggle('selected', Boolean(on));
    row.querySelector('button.region-show')?.setAttribute('aria-pressed', String(Boolean(on)));
  }
  if (!hist || !c || !region || !c.baselineId) {
    if (hist) hist.regionIndex = null;
    $('region-zoom').hidden = true;
    $('compare-range').value = '50';
    $('compare-range').dispatchEvent(new Event('input'));
    return;
  }
  hist.regionIndex = index;
  // Until the new crops are drawn, the ones shown are another region's: say so (and tests wait on it).
  delete $('crops').dataset.region;
  delete $('crops').dataset.capture;
  $('region-zoom').hidden = false;
  $('zoom-title').textContent =
    `Region ${index + 1} of ${c.regions.length}: x ${region.x}, y ${region.y}, ${region.width} × ${region.height} px`;
  positionViews();
  drawing = drawCrops(c, index);
}

/** The crops being drawn (their size is known once they are). */
let drawing = Promise.resolve();
export const cropsDrawn = () => drawing;

async function drawCrops(c, index) {
  const generation = imageGeneration;
  const region = c.regions[index];
  $('crops').setAttribute('aria-busy', 'true');
  try {
    const [before, after] = await Promise.all([decodedImage(c.baselineId), decodedImage(c.id)]);
    const hist = state.history;
    if (generation !== imageGeneration || hist?.selectedId !== c.id || hist.regionIndex !== index) return;
    // Regions are in the union of both images (a page that grew): the crop may pass one image's edge.
    const crop = cropOf(
      region,
      Math.max(before.naturalWidth, after.naturalWidth),
      Math.max(before.naturalHeight, after.naturalHeight),
    );
    draw($('crop-before'), before, crop);
    draw($('crop-after'), after, crop);
    for (const canvas of [$('crop-before'), $('crop-after')]) {
      Object.assign(canvas.dataset, { x: crop.x, y: crop.y, width: crop.width, height: crop.height });
    }
    $('crop-before').setAttribute('aria-label', `Before: region ${index + 1} in the previous capture, zoomed`);
    $('crop-after').setAttribute('aria-label', `After: region ${index + 1} in this capture, zoomed`);
    current = { crop, region };
    sizeCrops();
    Object.assign($('crops').dataset, { region: String(index), capture: c.id });
  } catch {
    $('zoom-title').textContent += ' (the images could not be loaded)';
  } finally {
    $('crops').removeAttribute('aria-busy');
  }
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

/** What is drawn now: the crop and its region. */
let current = null;

/** Both crops at one scale that fits the pane, and the region's box marked on each. */
function sizeCrops() {
  if (!current || $('region-zoom').hidden) return;
  const { crop, region } = current;
  const stacked = crop.width / crop.height > STACK_ASPECT;
  $('crops').classList.toggle('stacked', stacked);
  const gap = 12;
  const room = $('crops').clientWidth - (stacked ? 0 : gap);
  const each = stacked ? room : room / 2;
  const maxHeight = Math.min(MAX_CROP_HEIGHT, window.innerHeight * 0.3);
  const scale = Math.min(each / crop.width, maxHeight / crop.height, MAX_ZOOM);
  for (const side of ['before', 'after']) {
    const canvas = $(`crop-${side}`);
    canvas.style.width = `${crop.width * scale}px`;
    canvas.style.height = `${crop.height * scale}px`;
    Object.assign($(`mark-${side}`).style, {
      left: `${(region.x - crop.x) * scale}px`,
      top: `${(region.y - crop.y) * scale}px`,
      width: `${Math.max(2, region.width * scale)}px`,
      height: `${Math.max(2, region.height * scale)}px`,
    });
  }
}

if ('ResizeObserver' in window) new ResizeObserver(sizeCrops).observe($('crops'));

/**
 * The slider's edge on the middle of the selected region, and the image frames (fitted or actual size,
 * and the slider's) scrolled so the region is in their middle.
 */
export function positionViews() {
  const hist = state.history;
  const c = selectedCapture();
  const r = hist?.regionIndex === null || hist?.regionIndex === undefined ? null : c?.regions?.[hist.regionIndex];
  if (!r) return;
  const cx = r.x + r.width / 2;
  const cy = r.y + r.height / 2;
  const under = $('compare-prev');
  const width = under.naturalWidth || c.width || 1;
  const range = $('compare-range');
  range.value = String(Math.max(0, Math.min(100, Math.round((cx / width) * 100))));
  range.dispatchEvent(new Event('input'));
  centre($('compare-box').parentElement, under, cx, cy);
  centre($('single'), $('single-img'), cx, cy);
}

/** Scrolls `frame` so the image point (x, y) of `img`, as scaled, is in its middle. */
function centre(frame, img, x, y) {
  if (!img.naturalWidth || frame.hidden || !frame.clientWidth) return;
  const scale = img.clientWidth / img.naturalWidth;
  frame.scrollLeft = img.offsetLeft + x * scale - frame.clientWidth / 2;
  frame.scrollTop = img.offsetTop + y * scale - frame.clientHeight / 2;
}
