// The selected capture in the history: its verdict, facts and details, and the previous / current / diff /
// slider views of its images (fetched with the key as blob: URLs), fitted or at actual size; the selected
// region's crops, and the slider and image frames moved onto it.
import { useEffect, useRef } from '/assets/vendor/preact-hooks.js';
import { useSignal, useSignalEffect } from '/assets/vendor/signals.js';
import { ApiError } from '/assets/api.js';
import { html } from '/assets/monitors-app/html.js';
import { absoluteTime, percent, relativeTime } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { Verdict } from '/assets/monitors-viewer/verdict.js';
import { Conditions, Regions, TextChanges } from '/assets/monitors-viewer/details.js';
import { RegionZoom } from '/assets/monitors-viewer/zoom.js';
import { ComparedText, contentFacts } from '/assets/monitors-viewer/content.js';

const VIEW_NOTES = {
  previous: 'The previous capture: the baseline this one was compared with.',
  current: 'This capture.',
  diff: 'Changed pixels in red on a faded copy of this capture; ignored areas tinted blue; regions outlined.',
  slider: 'The previous capture under this one: move the slider to reveal more or less of the current capture.',
};
const VIEW_WORDS = { previous: 'Previous', current: 'Current', diff: 'Diff' };

function viewsOf(c) {
  const views = new Set();
  if (c.status === 'failed' || !c.imageUrl) return views;
  views.add('current');
  // A suspect or filter_missing capture was never compared: it has its own image only.
  if (c.baselineId && c.status === 'succeeded') {
    views.add('previous');
    views.add('slider');
  }
  if (c.diffUrl) views.add('diff');
  return views;
}

function whyNot(c, view) {
  if (c.status === 'failed') return 'The capture failed: there is no image.';
  if (view === 'diff')
    return c.baselineId
      ? 'Nothing differed from the previous capture: there is no diff image.'
      : 'A baseline has nothing to compare with.';
  return 'A baseline has no previous capture.';
}

function setImage(img, src, alt) {
  img.alt = alt;
  if (img.getAttribute('src') === src && img.complete) return Promise.resolve();
  return new Promise((resolve, reject) => {
    img.onload = () => resolve();
    img.onerror = () => reject(new Error('the image did not decode'));
    img.src = src;
  });
}

/** Scrolls `frame` so the image point (x, y) of `img`, as scaled, is in its middle. */
function centre(frame, img, x, y) {
  if (!img?.naturalWidth || !frame || frame.hidden || !frame.clientWidth) return;
  const scale = img.clientWidth / img.naturalWidth;
  frame.scrollLeft = img.offsetLeft + x * scale - frame.clientWidth / 2;
  frame.scrollTop = img.offsetTop + y * scale - frame.clientHeight / 2;
}

function Facts({ c, m }) {
  const facts = [
    ['Taken', `${relativeTime(c.takenAt)} (${c.reason ?? 'schedule'}), in ${(c.durationMs / 1000).toFixed(1)} s`],
    c.width ? ['Size', `${c.width} × ${c.height} px${c.truncated ? ' (cut at the size limit)' : ''}`] : null,
    ...contentFacts(c, m),
    c.summary ? ['Text changed', c.summary] : null,
    c.baselineId && c.status === 'succeeded'
      ? [
          'Pixels that differ',
          `${c.diffPixels.toLocaleString('en')} (${percent(c.diffRatio)}) in ${c.regions?.length ?? 0} region${c.regions?.length === 1 ? '' : 's'}`,
        ]
      : null,
  ].filter(Boolean);
  return html`<dl class="meta" id="viewer-meta">
    ${facts.map(
      ([term, value]) =>
        html`<dt>${term}</dt>
          <dd>${value}</dd>`,
    )}
  </dl>`;
}

export function Viewer({ hist, m, section }) {
  const store = useStore();
  const c = hist.captures.value.find((x) => x.id === hist.selectedId.value) ?? null;
  const el = useRef({}).current;
  const part = (name) => (node) => {
    el[name] = node;
  };
  const actual = useSignal(false);
  const slider = useSignal(50);
  const status = useSignal(null);
  const caption = useSignal('');
  const outline = useSignal(null);
  const revealed = useRef(false);

  const available = c ? viewsOf(c) : new Set();
  let view = hist.view.value;
  if (c && !available.has(view)) view = available.has('current') ? 'current' : ([...available][0] ?? 'current');
  const regionIndex = c?.regions?.length && c.baselineId ? (hist.regionIndex.value ?? 0) : null;
  const region = regionIndex === null ? null : c.regions[regionIndex];

  /** The slider's edge on the middle of the selected region, and the image frames scrolled onto it. */
  function positionViews() {
    if (!region) return;
    const cx = region.x + region.width / 2;
    const cy = region.y + region.height / 2;
    const width = el.comparePrev?.naturalWidth || c.width || 1;
    slider.value = Math.max(0, Math.min(100, Math.round((cx / width) * 100)));
    centre(el.compareBox?.parentElement, el.comparePrev, cx, cy);
    centre(el.single, el.singleImg, cx, cy);
  }

  /** The current image inside the reveal keeps the full width of the box, so only the reveal's width changes. */
  function sizeCompare() {
    const width = el.compareBox?.clientWidth;
    if (width) el.compareCur.style.width = `${width}px`;
  }

  // The images of the view shown, loaded when the capture, the view or the images' generation change.
  useEffect(() => {
    outline.value = null;
    if (!c || !available.size) return;
    const generation = hist.imageGeneration.peek();
    const stale = () => generation !== hist.imageGeneration.peek() || hist.view.peek() !== view;
    status.value = { loading: true };
    const when = absoluteTime(c.takenAt);
    (async () => {
      try {
        if (view === 'slider') {
          const [prev, cur] = await Promise.all([
            store.imageUrl(hist, c.baselineId, 'image'),
            store.imageUrl(hist, c.id, 'image'),
          ]);
          if (stale()) return;
          await Promise.all([
            setImage(el.comparePrev, prev, 'The previous capture (baseline)'),
            setImage(el.compareCur, cur, `The capture of ${when}`),
          ]);
          sizeCompare();
        } else {
          const src =
            view === 'previous'
              ? await store.imageUrl(hist, c.baselineId, 'image')
              : await store.imageUrl(hist, c.id, view === 'diff' ? 'diff' : 'image');
          if (stale()) return;
          const label = {
            previous: 'The previous capture (baseline)',
            current: `The capture of ${when}`,
            diff: `Differences between the capture of ${when} and the previous one`,
          }[view];
          await setImage(el.singleImg, src, label);
          caption.value = `${VIEW_WORDS[view]} · ${el.singleImg.naturalWidth} × ${el.singleImg.naturalHeight} px`;
        }
        positionViews();
        status.value = null;
      } catch (err) {
        if (generation !== hist.imageGeneration.peek()) return;
        if (err instanceof ApiError && err.status === 401) return store.handleError(err);
        status.value = {
          error: `The image could not be loaded. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`,
        };
      }
    })();
  }, [c?.id, view, hist.imageGeneration.value]);

  // Images let go (another capture selected): the old ones must not show meanwhile.
  useSignalEffect(() => {
    hist.imageGeneration.value;
    for (const img of [el.singleImg, el.comparePrev, el.compareCur]) img?.removeAttribute('src');
  });

  useEffect(() => positionViews(), [regionIndex, actual.value]);
  useEffect(() => {
    if (!('ResizeObserver' in window) || !el.compareBox) return;
    const observer = new ResizeObserver(sizeCompare);
    observer.observe(el.compareBox);
    return () => observer.disconnect();
  }, [Boolean(c)]);

  /**
   * Once the first capture is shown: the history's top in view (the first scroll happened while the
   * section was still empty, so the page may have been too short for it), and when that leaves the verdict
   * or the selected region's crops below the fold (a phone: the captures come first), the viewer instead,
   * with the focus on its title.
   */
  function reveal() {
    if (revealed.current || !el.title) return;
    revealed.current = true;
    section.current?.scrollIntoView({ block: 'start' });
    const seen = el.viewerBody.querySelector('#region-zoom') ?? el.viewerBody.querySelector('#verdict');
    if (seen && seen.getBoundingClientRect().bottom > window.innerHeight) {
      el.title.scrollIntoView({ block: 'start' });
      el.title.focus();
    }
  }
  useEffect(() => {
    if (c && regionIndex === null) reveal();
  }, [c?.id]);

  const selectView = (v) => {
    hist.view.value = v;
  };
  const outlineStyle = () => {
    const box = outline.value;
    const img = view === 'slider' ? el.comparePrev : el.singleImg;
    if (!box || !img?.naturalWidth) return null;
    const scale = img.clientWidth / img.naturalWidth;
    return {
      left: `${img.offsetLeft + box.x * scale}px`,
      top: `${img.offsetTop + box.y * scale}px`,
      width: `${Math.max(box.width * scale, 2)}px`,
      height: `${Math.max(box.height * scale, 2)}px`,
    };
  };
  const style = outlineStyle();
  const Outline = () =>
    style ? html`<div id="region-outline" class="region-outline" aria-hidden="true" style=${style}></div>` : null;
  const viewButton = (v, words, extra = {}) =>
    html`<button
      type="button"
      data-view=${v}
      aria-pressed=${String(view === v)}
      disabled=${!available.has(v)}
      title=${available.has(v) ? '' : whyNot(c, v)}
      onClick=${() => selectView(v)}
      ...${extra}
    >
      ${words}
    </button>`;

  if (!c)
    return html`<div class="card viewer-card" id="viewer">
      <p id="viewer-empty" class="muted">Select a capture to see it.</p>
    </div>`;
  const isSlider = view === 'slider';
  return html`<div class="card viewer-card" id="viewer">
    <div id="viewer-body" ref=${part('viewerBody')}>
      <h3 id="viewer-title" tabindex="-1" ref=${part('title')}>Capture of ${absoluteTime(c.takenAt)}</h3>
      <${Verdict} c=${c} m=${m} />
      <div class="changes">
        <div class="changes-main">
          ${region ? html`<${RegionZoom} hist=${hist} c=${c} index=${regionIndex} onDrawn=${reveal} />` : null}
          <${Facts} c=${c} m=${m} />
        </div>
        <${Regions}
          c=${c}
          m=${m}
          selectedIndex=${regionIndex}
          onSelect=${(i) => (hist.regionIndex.value = i)}
          outline=${outline}
        />
      </div>
      <div class="view-toolbar" id="view-toolbar" hidden=${!available.size}>
        <div role="group" aria-label="Image to show" class="segmented">
          ${viewButton('previous', 'Previous')} ${viewButton('current', 'Current')} ${viewButton('diff', 'Diff')}
        </div>
        ${viewButton('slider', 'Slider compare', { class: 'slider-toggle' })}
        <button
          type="button"
          id="zoom"
          aria-pressed=${String(actual.value)}
          aria-controls="single"
          hidden=${isSlider}
          onClick=${() => (actual.value = !actual.value)}
        >
          Actual size
        </button>
      </div>
      <p id="view-note" class="hint">${available.size ? VIEW_NOTES[view] : ''}</p>
      <div class="viewer-split">
        <div class="viewer-images">
          <div id="stage-status" role="status" class="stage-status">
            ${
              !available.size
                ? html`<div class="alert error">
                    ${`This capture failed, so it has no image. ${c.error ? `${c.error.code}: ${c.error.message}` : ''}`}
                  </div>`
                : status.value?.loading
                  ? html`<span class="loading"><span class="spinner" aria-hidden="true"></span> Loading image…</span>`
                  : status.value?.error
                    ? html`<div class="alert error">${status.value.error}</div>`
                    : null
            }
          </div>
          <figure
            id="single"
            class="stage${actual.value ? ' actual' : ''}"
            hidden=${isSlider || !available.size}
            ref=${part('single')}
          >
            <img id="single-img" alt="" ref=${part('singleImg')} />
            <figcaption id="single-caption" class="hint">${caption.value}</figcaption>
            ${isSlider ? null : html`<${Outline} />`}
          </figure>
          <div id="compare" class="compare" hidden=${!isSlider}>
            <div class="compare-labels" aria-hidden="true"><span>◀ Current</span><span>Previous ▶</span></div>
            <div class="stage">
              <div class="compare-box" id="compare-box" ref=${part('compareBox')}>
                <img id="compare-prev" alt="" ref=${part('comparePrev')} />
                <div class="reveal" id="compare-reveal" style=${{ width: `${slider.value}%` }}>
                  <img id="compare-cur" alt="" ref=${part('compareCur')} />
                </div>
                ${isSlider ? html`<${Outline} />` : null}
              </div>
            </div>
            <label for="compare-range">Reveal the current capture over the previous one</label>
            <input
              type="range"
              id="compare-range"
              min="0"
              max="100"
              step="1"
              value=${slider.value}
              aria-valuetext=${`${slider.value} % of the current capture shown`}
              onInput=${(event) => (slider.value = Number(event.currentTarget.value))}
            />
          </div>
        </div>
        <${TextChanges} c=${c} outline=${outline} />
      </div>
      <${Conditions} c=${c} m=${m} />
      <${ComparedText} c=${c} />
    </div>
  </div>`;
}
