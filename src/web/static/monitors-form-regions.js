// The form's ignore regions (diff.ignoreRegions): a row of x / y / width / height per box, typed (the
// keyboard way) or drawn with a pointer on the monitor's latest capture. The image is shown scaled to
// the form; a drawn box is turned into image pixels (the capture's own), which is what the differ uses.
import { $, call, h, json, setButtonText } from '/assets/monitors-util.js';

/** The API's limit; Add stops there. */
const MAX_REGIONS = 100;
const SIDES = [
  ['x', 'x'],
  ['y', 'y'],
  ['width', 'Width'],
  ['height', 'Height'],
];

let serial = 0;
let blobUrl = null;
/** Which monitor's capture is (being) shown: a late answer for another monitor is dropped. */
let shownFor = null;

const list = $('f-regions-list');
const rows = () => [...list.children];

function buildRow(box) {
  const n = ++serial;
  const cells = SIDES.map(([side, words]) => {
    const input = h('input', {
      type: 'number',
      id: `f-region-${n}-${side}`,
      class: `side ${side}`,
      min: side === 'width' || side === 'height' ? 1 : 0,
      step: 1,
      inputmode: 'numeric',
      dataset: { side },
    });
    input.value = box?.[side] ?? '';
    return h('div', { class: 'cell' }, h('label', { for: input.id }, words), input);
  });
  return h(
    'li',
    { class: 'list-row region-row' },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Region'),
      h(
        'div',
        { class: 'cells' },
        ...cells,
        h('button', { type: 'button', class: 'small remove' }),
        h('p', { class: 'field-error', id: `f-region-${n}-error`, hidden: true }),
      ),
    ),
  );
}

function update() {
  rows().forEach((row, i) => {
    row.querySelector('legend').textContent = `Region ${i + 1} (image px)`;
    setButtonText(row.querySelector('button.remove'), 'Remove', `region ${i + 1}`);
  });
  $('f-regions-add').disabled = rows().length >= MAX_REGIONS;
  drawBoxes();
}

function append(box) {
  const row = buildRow(box);
  list.append(row);
  update();
  return row;
}

export function setRegions(m) {
  list.replaceChildren();
  for (const box of m?.diff?.ignoreRegions ?? []) append(box);
  update();
  loadCapture(m?.id ?? null);
}

export const regionCount = () => rows().length;

/** The boxes as typed: numbers, or the text so the API names what is wrong. */
export function readRegions() {
  return rows().map((row) =>
    Object.fromEntries(
      [...row.querySelectorAll('input.side')].map((input) => {
        const raw = input.value.trim();
        const n = Number(raw);
        return [input.dataset.side, raw !== '' && Number.isFinite(n) ? n : raw === '' ? null : raw];
      }),
    ),
  );
}

/** A side left empty is named here, in words, before asking the API. */
export function regionProblems() {
  const problems = [];
  rows().forEach((row, i) => {
    const empty = [...row.querySelectorAll('input.side')].find((input) => input.value.trim() === '');
    if (empty)
      problems.push({
        path: `diff.ignoreRegions.${i}.${empty.dataset.side}`,
        message: `Enter the ${empty.dataset.side} of region ${i + 1} in image pixels, or remove it.`,
      });
  });
  return problems;
}

/** The control an API path `diff.ignoreRegions.2.width` names, as [control id, error id]; null otherwise. */
export function regionFieldOf(path) {
  const match = /^diff\.ignoreRegions(?:\.(\d+)(?:\.([a-z]+))?)?/.exec(path);
  if (!match) return null;
  const row = match[1] !== undefined && rows()[Number(match[1])];
  if (!row) return ['f-regions-add', 'f-regions-error'];
  const input = row.querySelector(`input[data-side="${match[2] ?? 'x'}"]`) ?? row.querySelector('input');
  return [input.id, row.querySelector('.field-error').id];
}

$('f-regions-add').addEventListener('click', () => append().querySelector('input').focus());
list.addEventListener('click', (event) => {
  const button = event.target.closest('button.remove');
  if (!button) return;
  const row = button.closest('li');
  const next = row.nextElementSibling ?? row.previousElementSibling;
  row.remove();
  update();
  (next?.querySelector('input') ?? $('f-regions-add')).focus();
});
list.addEventListener('input', drawBoxes);

// ------------------------------------------------------------------------------ the latest capture

/** Shows the newest capture with an image to draw on, or says there is none. */
async function loadCapture(monitorId) {
  shownFor = monitorId;
  if (blobUrl) URL.revokeObjectURL(blobUrl);
  blobUrl = null;
  $('f-regions-img').removeAttribute('src');
  $('f-regions-drawing').hidden = true;
  $('f-regions-nocapture').hidden = false; // until an image shows (a new monitor has none)
  if (monitorId === null) return;
  try {
    const page = await json('GET', `/api/monitors/${encodeURIComponent(monitorId)}/captures?limit=20`);
    const capture = page.items.find((c) => c.status === 'succeeded' && c.imageUrl);
    if (!capture || shownFor !== monitorId) return;
    const blob = await (await call('GET', `/api/captures/${encodeURIComponent(capture.id)}/image`)).blob();
    if (shownFor !== monitorId) return;
    blobUrl = URL.createObjectURL(blob);
    const img = $('f-regions-img');
    img.alt = `Latest capture, ${capture.width} × ${capture.height} px: drag on it to add a region`;
    img.src = blobUrl;
    await img.decode().catch(() => {});
    $('f-regions-drawing-note').textContent =
      `Drag on the capture of ${new Date(capture.takenAt).toLocaleString()} to add a region; the boxes are outlined.`;
    $('f-regions-nocapture').hidden = true;
    $('f-regions-drawing').hidden = false;
    drawBoxes();
  } catch {
    // Without an image the regions are typed; the form works the same.
  }
}

/** Image pixels per CSS pixel of the image as laid out. */
function scaleOf(img) {
  const rect = img.getBoundingClientRect();
  return { rect, sx: img.naturalWidth / rect.width, sy: img.naturalHeight / rect.height };
}

/** The point of a pointer event in image pixels, kept inside the image. */
function imagePoint(event) {
  const img = $('f-regions-img');
  const { rect, sx, sy } = scaleOf(img);
  const clamp = (v, max) => Math.min(Math.max(v, 0), max);
  return {
    x: clamp((event.clientX - rect.left) * sx, img.naturalWidth),
    y: clamp((event.clientY - rect.top) * sy, img.naturalHeight),
  };
}

const boxOf = (a, b) => {
  const x = Math.round(Math.min(a.x, b.x));
  const y = Math.round(Math.min(a.y, b.y));
  return { x, y, width: Math.round(Math.max(a.x, b.x)) - x, height: Math.round(Math.max(a.y, b.y)) - y };
};

/** Places an outline over the image at a box in image pixels (percentages, so it follows the image's size). */
function place(el, box) {
  const img = $('f-regions-img');
  el.style.left = `${(box.x / img.naturalWidth) * 100}%`;
  el.style.top = `${(box.y / img.naturalHeight) * 100}%`;
  el.style.width = `${(box.width / img.naturalWidth) * 100}%`;
  el.style.height = `${(box.height / img.naturalHeight) * 100}%`;
}

function drawBoxes() {
  const canvas = $('f-regions-canvas');
  for (const old of canvas.querySelectorAll('.region-box:not(.drawing)')) old.remove();
  if (!$('f-regions-img').naturalWidth) return;
  readRegions().forEach((box, i) => {
    if (![box.x, box.y, box.width, box.height].every((v) => typeof v === 'number')) return;
    const el = h('div', { class: 'region-box', 'aria-hidden': 'true' }, h('span', {}, String(i + 1)));
    place(el, box);
    canvas.append(el);
  });
}

let drag = null;
const canvas = $('f-regions-canvas');
canvas.addEventListener('pointerdown', (event) => {
  if (event.button !== 0 || !$('f-regions-img').naturalWidth || rows().length >= MAX_REGIONS) return;
  event.preventDefault(); // no image drag, no text selection
  canvas.setPointerCapture(event.pointerId);
  const start = imagePoint(event);
  const el = h('div', { class: 'region-box drawing', 'aria-hidden': 'true' });
  canvas.append(el);
  drag = { start, el, pointerId: event.pointerId };
  place(el, boxOf(start, start));
});
canvas.addEventListener('pointermove', (event) => {
  if (drag?.pointerId !== event.pointerId) return;
  place(drag.el, boxOf(drag.start, imagePoint(event)));
});
function endDrag(event, keep) {
  if (drag?.pointerId !== event.pointerId) return;
  const box = boxOf(drag.start, imagePoint(event));
  drag.el.remove();
  drag = null;
  // A click or a twitch is not a region.
  if (!keep || box.width < 2 || box.height < 2) return;
  append(box);
  $('f-regions-drawing-note').textContent =
    `Region ${rows().length} added: x ${box.x}, y ${box.y}, ${box.width} × ${box.height} px. Save to keep it.`;
  $('f-advanced').dispatchEvent(new Event('change'));
}
canvas.addEventListener('pointerup', (event) => endDrag(event, true));
canvas.addEventListener('pointercancel', (event) => endDrag(event, false));
