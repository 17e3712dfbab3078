// The form's ignore regions (diff.ignoreRegions): a row of x / y / width / height per box, typed (the
// keyboard way) or drawn with a pointer on the monitor's latest capture. The image is shown scaled to
// the form; a drawn box is turned into image pixels (the capture's own), which is what the differ uses.
import { useEffect, useRef } from '/assets/vendor/preact-hooks.js';
import { useSignal } from '/assets/vendor/signals.js';
import { html } from '/assets/monitors-app/html.js';
import { Words } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { FieldError } from '/assets/monitors-form/model.js';

/** The API's limit; Add stops there. */
const MAX_REGIONS = 100;
const SIDES = [
  ['x', 'x'],
  ['y', 'y'],
  ['width', 'Width'],
  ['height', 'Height'],
];

export const regionRows = (m) =>
  (m?.diff?.ignoreRegions ?? []).map((box) => Object.fromEntries(SIDES.map(([side]) => [side, String(box[side])])));

/** The boxes as typed: numbers, or the text so the API names what is wrong. */
export function readRegions(model) {
  return model.regions.value.map((row) =>
    Object.fromEntries(
      SIDES.map(([side]) => {
        const raw = String(row[side] ?? '').trim();
        const n = Number(raw);
        return [side, raw !== '' && Number.isFinite(n) ? n : raw === '' ? null : raw];
      }),
    ),
  );
}

/** A side left empty is named here, in words, before asking the API. */
export function regionProblems(model) {
  const problems = [];
  model.regions.value.forEach((row, i) => {
    const empty = SIDES.find(([side]) => String(row[side] ?? '').trim() === '');
    if (empty)
      problems.push({
        path: `diff.ignoreRegions.${i}.${empty[0]}`,
        message: `Enter the ${empty[0]} of region ${i + 1} in image pixels, or remove it.`,
      });
  });
  return problems;
}

/** The control an API path `diff.ignoreRegions.2.width` names, as [control id, error id]; null otherwise. */
export function regionFieldOf(model, path) {
  const match = /^diff\.ignoreRegions(?:\.(\d+)(?:\.([a-z]+))?)?/.exec(path);
  if (!match) return null;
  const row = match[1] !== undefined && model.regions.value[Number(match[1])];
  if (!row) return ['f-regions-add', 'f-regions-error'];
  const side = SIDES.some(([s]) => s === match[2]) ? match[2] : 'x';
  return [`f-region-${row.n}-${side}`, `f-region-${row.n}-error`];
}

const boxOf = (a, b) => {
  const x = Math.round(Math.min(a.x, b.x));
  const y = Math.round(Math.min(a.y, b.y));
  return { x, y, width: Math.round(Math.max(a.x, b.x)) - x, height: Math.round(Math.max(a.y, b.y)) - y };
};

/** An outline over the image at a box in image pixels (percentages, so it follows the image's size). */
const placed = (box, image) => ({
  left: `${(box.x / image.width) * 100}%`,
  top: `${(box.y / image.height) * 100}%`,
  width: `${(box.width / image.width) * 100}%`,
  height: `${(box.height / image.height) * 100}%`,
});

export function RegionsEditor({ model, monitorId }) {
  const store = useStore();
  const rows = model.regions.value;
  /** The latest capture to draw on: { url, alt, note, width, height } once loaded. */
  const image = useSignal(null);
  const note = useSignal('');
  const drag = useSignal(null);
  const img = useRef(null);

  // The newest capture with an image; without one the regions are typed, and the form works the same.
  useEffect(() => {
    if (monitorId === null) return;
    let url = null;
    let current = true;
    (async () => {
      try {
        const page = await store.json('GET', `/api/monitors/${encodeURIComponent(monitorId)}/captures?limit=20`);
        const capture = page.items.find((c) => c.status === 'succeeded' && c.imageUrl);
        if (!capture || !current) return;
        const blob = await (await store.call('GET', `/api/captures/${encodeURIComponent(capture.id)}/image`)).blob();
        if (!current) return;
        url = URL.createObjectURL(blob);
        const probe = new Image();
        probe.src = url;
        await probe.decode().catch(() => {});
        if (!current) return;
        note.value = `Drag on the capture of ${new Date(capture.takenAt).toLocaleString()} to add a region; the boxes are outlined.`;
        image.value = {
          url,
          alt: `Latest capture, ${capture.width} × ${capture.height} px: drag on it to add a region`,
          width: probe.naturalWidth,
          height: probe.naturalHeight,
        };
      } catch {
        // Without an image the regions are typed.
      }
    })();
    return () => {
      current = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, []);

  const add = (box) => {
    const row = {
      ...Object.fromEntries(SIDES.map(([side]) => [side, box ? String(box[side]) : ''])),
      n: model.nextSerial(),
    };
    model.regions.value = [...rows, row];
    return row;
  };
  const remove = (i) => {
    const next = rows[i + 1] ?? rows[i - 1];
    model.regions.value = rows.filter((_, j) => j !== i);
    model.focus.value = next ? `#f-region-${next.n}-x` : '#f-regions-add';
  };
  const update = (i, side, value) => {
    model.regions.value = rows.map((row, j) => (j === i ? { ...row, [side]: value } : row));
  };

  /** The point of a pointer event in image pixels, kept inside the image. */
  const imagePoint = (event) => {
    const rect = img.current.getBoundingClientRect();
    const { width, height } = image.value;
    const clamp = (v, max) => Math.min(Math.max(v, 0), max);
    return {
      x: clamp((event.clientX - rect.left) * (width / rect.width), width),
      y: clamp((event.clientY - rect.top) * (height / rect.height), height),
    };
  };
  const onDown = (event) => {
    if (event.button !== 0 || !image.value || rows.length >= MAX_REGIONS) return;
    event.preventDefault(); // no image drag, no text selection
    event.currentTarget.setPointerCapture(event.pointerId);
    const start = imagePoint(event);
    drag.value = { start, box: boxOf(start, start), pointerId: event.pointerId };
  };
  const onMove = (event) => {
    if (drag.value?.pointerId !== event.pointerId) return;
    drag.value = { ...drag.value, box: boxOf(drag.value.start, imagePoint(event)) };
  };
  const onEnd = (keep) => (event) => {
    if (drag.value?.pointerId !== event.pointerId) return;
    const box = boxOf(drag.value.start, imagePoint(event));
    drag.value = null;
    // A click or a twitch is not a region.
    if (!keep || box.width < 2 || box.height < 2) return;
    add(box);
    note.value = `Region ${rows.length + 1} added: x ${box.x}, y ${box.y}, ${box.width} × ${box.height} px. Save to keep it.`;
  };

  const boxes = image.value
    ? readRegions(model)
        .map((box, i) => [box, i])
        .filter(([box]) => [box.x, box.y, box.width, box.height].every((v) => typeof v === 'number'))
    : [];
  return html`<fieldset>
    <legend>Ignore regions</legend>
    <p class="hint" id="f-regions-hint">
      Boxes in capture pixels left out of the comparison. Draw one on the latest capture with the mouse or a finger, or
      add one and type its numbers. At most 100.
    </p>
    <div id="f-regions-drawing" class="regions-drawing" hidden=${!image.value}>
      <p class="hint" id="f-regions-drawing-note" role="status">${note.value}</p>
      ${/* Focusable: a tall capture scrolls here, and the keyboard must reach that too. */ ''}
      <div class="regions-scroll" tabindex="0" role="region" aria-label="Latest capture, to draw regions on">
        <div
          class="regions-canvas"
          id="f-regions-canvas"
          onPointerDown=${onDown}
          onPointerMove=${onMove}
          onPointerUp=${onEnd(true)}
          onPointerCancel=${onEnd(false)}
        >
          <img id="f-regions-img" ref=${img} alt=${image.value?.alt ?? ''} src=${image.value?.url} />
          ${boxes.map(
            ([box, i]) =>
              html`<div class="region-box" aria-hidden="true" style=${placed(box, image.value)}>
                <span>${String(i + 1)}</span>
              </div>`,
          )}
          ${
            drag.value
              ? html`<div
                  class="region-box drawing"
                  aria-hidden="true"
                  style=${placed(drag.value.box, image.value)}
                ></div>`
              : null
          }
        </div>
      </div>
    </div>
    <p class="hint" id="f-regions-nocapture" hidden=${Boolean(image.value)}>
      No capture to draw on yet: run the monitor once, or type the numbers.
    </p>
    <ol class="edit-list regions-list" id="f-regions-list">
      ${rows.map(
        (row, i) =>
          html`<li class="list-row region-row" key=${row.n}>
            <fieldset>
              <legend>Region ${i + 1} (image px)</legend>
              <div class="cells">
                ${SIDES.map(([side, words]) => {
                  const id = `f-region-${row.n}-${side}`;
                  const errorId = `f-region-${row.n}-error`;
                  return html`<div class="cell">
                    <label for=${id}>${words}</label>
                    <input
                      type="number"
                      id=${id}
                      class="side ${side}"
                      min=${side === 'width' || side === 'height' ? 1 : 0}
                      step="1"
                      inputmode="numeric"
                      data-side=${side}
                      value=${row[side]}
                      onInput=${(event) => update(i, side, event.currentTarget.value)}
                      aria-invalid=${model.invalid.value.has(id) ? 'true' : undefined}
                      aria-describedby=${model.invalid.value.has(id) ? errorId : undefined}
                    />
                  </div>`;
                })}
                <button type="button" class="small remove" onClick=${() => remove(i)}>
                  <${Words} visible="Remove" hidden=${`region ${i + 1}`} />
                </button>
                <${FieldError} model=${model} id=${`f-region-${row.n}-error`} />
              </div>
            </fieldset>
          </li>`,
      )}
    </ol>
    <${FieldError} model=${model} id="f-regions-error" />
    <button
      type="button"
      class="small"
      id="f-regions-add"
      disabled=${rows.length >= MAX_REGIONS}
      onClick=${() => {
        const row = add();
        model.focus.value = `#f-region-${row.n}-x`;
      }}
    >
      Add region
    </button>
  </fieldset>`;
}
