// The visual selector: on the monitor's newest successful capture, a click picks the smallest text block
// whose box holds the point, and its selector fills the field that asked (a filter row, a rule's element,
// the price or availability selector). The blocks are the capture's own (GET /api/captures/{id}/text), so
// a picked selector is one the service found unique on that page. The keyboard way: the same blocks as a list.
import { useEffect } from '/assets/vendor/preact-hooks.js';
import { useSignal } from '/assets/vendor/signals.js';
import { html } from '/assets/monitors-app/html.js';
import { useStore } from '/assets/monitors-app/context.js';

/** Loads the newest successful capture's image and text blocks into model.pickSource (none: no Pick buttons). */
export function usePickSource(model, monitorId) {
  const store = useStore();
  useEffect(() => {
    if (monitorId === null) return;
    let url = null;
    let current = true;
    (async () => {
      try {
        const page = await store.json('GET', `/api/monitors/${encodeURIComponent(monitorId)}/captures?limit=20`);
        const capture = page.items.find((c) => c.status === 'succeeded' && c.imageUrl);
        // A PDF's or JSON's blocks are named by page or path, not by CSS selectors: nothing to pick.
        if (!capture || !current || (capture.content && capture.content.kind !== 'html')) return;
        const id = encodeURIComponent(capture.id);
        const [blob, text] = await Promise.all([
          store.call('GET', `/api/captures/${id}/image`).then((res) => res.blob()),
          store.json('GET', `/api/captures/${id}/text`),
        ]);
        if (!current || !text.blocks?.length) return;
        url = URL.createObjectURL(blob);
        const probe = new Image();
        probe.src = url;
        await probe.decode().catch(() => {});
        if (!current) return;
        model.pickSource.value = {
          url,
          width: probe.naturalWidth,
          height: probe.naturalHeight,
          blocks: text.blocks,
          takenAt: capture.takenAt,
        };
      } catch {
        // Without a capture the selectors are typed, and the form works the same.
      }
    })();
    return () => {
      current = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, []);
}

/** "Pick" beside a selector box: shown once there is a capture to pick on. */
export function PickButton({ model, target, name, apply }) {
  if (!model.pickSource.value) return null;
  return html`<button
    type="button"
    class="small pick"
    onClick=${() => {
      model.picking.value = { target, name, apply };
      model.focus.value = '#f-pick-title';
    }}
  >
    Pick<span class="sr-only">${` ${name} on the latest capture`}</span>
  </button>`;
}

const area = (b) => b.box.width * b.box.height;
const contains = (b, x, y) => x >= b.box.x && x <= b.box.x + b.box.width && y >= b.box.y && y <= b.box.y + b.box.height;
const short = (text) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

/** The picking panel, while a field asks for an element. */
export function PickerPanel({ model }) {
  const asking = model.picking.value;
  const source = model.pickSource.value;
  const picked = useSignal(null);
  const choice = useSignal('0');
  const note = useSignal('');
  useEffect(() => {
    picked.value = null;
    note.value = '';
  }, [asking]);
  if (!asking || !source) return null;

  const pick = (index) => {
    const block = source.blocks[index];
    asking.apply(block.selector);
    picked.value = index;
    choice.value = String(index);
    note.value = `Picked ${block.selector} (“${short(block.text)}”) for ${asking.name}.`;
  };
  const onClick = (event) => {
    const rect = event.currentTarget.getBoundingClientRect();
    const x = (event.clientX - rect.left) * (source.width / rect.width);
    const y = (event.clientY - rect.top) * (source.height / rect.height);
    const under = source.blocks
      .map((b, i) => [b, i])
      .filter(([b]) => contains(b, x, y))
      .sort(([a], [b]) => area(a) - area(b));
    if (under.length) pick(under[0][1]);
    else note.value = 'No text there: click on a text, or choose an element from the list.';
  };
  const done = () => {
    model.picking.value = null;
    model.focus.value = `#${CSS.escape(asking.target)}`;
  };
  const box = picked.value === null ? null : source.blocks[picked.value]?.box;
  return html`<section class="picker" id="f-picker" aria-labelledby="f-pick-title">
    <h3 id="f-pick-title" tabindex="-1">Pick an element for ${asking.name}</h3>
    <p class="hint" id="f-pick-hint">
      Click a text on the capture of ${new Date(source.takenAt).toLocaleString()}: the smallest element there is picked
      and outlined. Or choose one from the list.
    </p>
    <p class="hint" id="f-pick-note" role="status">${note.value}</p>
    <div class="regions-scroll" tabindex="0" role="region" aria-label="Latest capture, to pick an element on">
      <div class="regions-canvas picker-canvas" id="f-pick-canvas" onClick=${onClick}>
        <img id="f-pick-img" src=${source.url} alt="Latest capture: click a text to pick its element" />
        ${
          box
            ? html`<div
                class="region-box pick-box"
                id="f-pick-box"
                aria-hidden="true"
                style=${{
                  left: `${(box.x / source.width) * 100}%`,
                  top: `${(box.y / source.height) * 100}%`,
                  width: `${(box.width / source.width) * 100}%`,
                  height: `${(box.height / source.height) * 100}%`,
                }}
              ></div>`
            : null
        }
      </div>
    </div>
    <label for="f-pick-list">Elements on the capture</label>
    <select id="f-pick-list" size="6" value=${choice.value} onChange=${(e) => (choice.value = e.currentTarget.value)}>
      ${source.blocks.map(
        (b, i) => html`<option value=${String(i)}>${`${b.selector} · ${short(b.text) || '(no text)'}`}</option>`,
      )}
    </select>
    <div class="picker-actions">
      <button type="button" class="small" id="f-pick-use" onClick=${() => pick(Number(choice.value))}>
        Use this element
      </button>
      <button type="button" class="small" id="f-pick-done" onClick=${done}>Done</button>
    </div>
  </section>`;
}
