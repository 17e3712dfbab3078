// A monitor's history: its captures (newest first, Load more), the selected capture's facts, and the
// previous / current / diff / slider views, with the images fetched with the key as blob: URLs.
import { ApiError } from '/assets/api.js';
import { hideOutline, renderDetails } from '/assets/monitors-capture-details.js';
import { closeDeliveries, followDeliveries, openDeliveries } from '/assets/monitors-deliveries.js';
import { handleError } from '/assets/monitors-key.js';
import { runNow } from '/assets/monitors-list.js';
import {
  $,
  absoluteTime,
  badge,
  call,
  captureResult,
  h,
  json,
  percent,
  relativeTime,
  setButtonText,
  state,
  timeEl,
} from '/assets/monitors-util.js';

const CAPTURES_PAGE = 20;

export async function openHistory(id) {
  const m = state.monitors.get(id);
  if (!m) return;
  if (state.history?.monitorId !== id) {
    clearImages();
    state.history = {
      monitorId: id,
      captures: [],
      nextCursor: null,
      selectedId: null,
      view: 'current',
      lastRunAt: m.lastRunAt ?? null,
    };
    $('captures').replaceChildren();
    $('viewer-body').hidden = true;
    $('viewer-empty').hidden = false;
  }
  $('history-title').textContent = `History of “${m.name}”`;
  $('history-url').replaceChildren(
    h('a', { href: m.url, target: '_blank', rel: 'noopener noreferrer' }, m.url),
    ` · ${m.schedule} (${m.timezone})`,
  );
  $('history-section').hidden = false;
  renderHistoryRun();
  $('history-section').scrollIntoView({ block: 'start' });
  $('history-title').focus();
  await Promise.all([loadCaptures({ select: state.history.selectedId }), openDeliveries(id)]);
}

export function closeHistory(refocus = true) {
  const id = state.history?.monitorId;
  clearImages();
  closeDeliveries();
  state.history = null;
  $('history-section').hidden = true;
  if (refocus && id)
    $('monitor-rows')
      .querySelector(`button[data-action="history"][data-id="${CSS.escape(id)}"]`)
      ?.focus();
}

$('history-close').addEventListener('click', () => closeHistory());
$('history-run').addEventListener('click', () => state.history && runNow(state.history.monitorId));

export function renderHistoryRun() {
  const button = $('history-run');
  const id = state.history?.monitorId;
  const running = Boolean(id && state.running.has(id));
  setButtonText(button, running ? 'Capturing…' : 'Run now');
  if (running) button.prepend(h('span', { class: 'spinner', 'aria-hidden': 'true' }));
  button.disabled = running;
  button.setAttribute('aria-busy', String(running));
  $('captures').querySelector('.pending')?.remove();
  if (running) {
    $('captures').prepend(
      h(
        'li',
        { class: 'pending' },
        h('span', { class: 'spinner', 'aria-hidden': 'true' }),
        ' Capture queued or running…',
      ),
    );
    $('captures-empty').hidden = true;
  } else if (state.history) {
    $('captures-empty').hidden = state.history.captures.length > 0;
  }
}

/** The history follows the list: when the monitor ran since (a scheduled capture), its first page reloads. */
export async function followHistory() {
  const hist = state.history;
  if (!hist) return;
  const m = state.monitors.get(hist.monitorId);
  if (!m) return closeHistory(false);
  void followDeliveries(); // its own errors are shown in its own card
  if ((m.lastRunAt ?? null) !== hist.lastRunAt && !state.running.has(m.id)) {
    await loadCaptures({ select: hist.selectedId });
  }
}

/** Reloads the first page of captures (or, with more, appends the next page). */
export async function loadCaptures({ select = null, more = false } = {}) {
  const hist = state.history;
  if (!hist) return;
  const id = hist.monitorId;
  try {
    const cursor = more ? hist.nextCursor : null;
    const page = await json(
      'GET',
      `/api/monitors/${encodeURIComponent(id)}/captures?limit=${CAPTURES_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (state.history !== hist) return;
    // A reload shows the first page again (newest first); older pages come back with Load more.
    hist.captures = more ? [...hist.captures, ...page.items] : page.items;
    hist.nextCursor = page.nextCursor;
    hist.lastRunAt = state.monitors.get(id)?.lastRunAt ?? hist.lastRunAt;
    renderCaptures();
    const target =
      (select && hist.captures.find((c) => c.id === select)) ??
      (hist.selectedId ? hist.captures.find((c) => c.id === hist.selectedId) : null) ??
      hist.captures[0];
    if (target && target.id !== hist.selectedId) selectCapture(target.id);
    else if (target) markSelected();
  } catch (err) {
    handleError(err, 'The captures could not be loaded');
  }
}

$('captures-more').addEventListener('click', () => loadCaptures({ more: true }));

function renderCaptures() {
  const hist = state.history;
  const list = $('captures');
  const focusedId = list.contains(document.activeElement) ? document.activeElement.dataset.capture : null;
  list.replaceChildren(
    ...hist.captures.map((c) => {
      const result =
        c.status === 'failed'
          ? badge('failed')
          : !c.baselineId
            ? badge('baseline')
            : c.changed
              ? badge('changed')
              : badge('unchanged');
      return h(
        'li',
        {},
        h(
          'button',
          { type: 'button', class: 'capture', dataset: { capture: c.id }, 'aria-pressed': 'false' },
          h(
            'span',
            { class: 'cap-time' },
            timeEl(c.takenAt),
            h('span', { class: 'hint abs' }, absoluteTime(c.takenAt)),
          ),
          h(
            'span',
            { class: 'cap-facts' },
            result,
            c.status === 'failed'
              ? null
              : h(
                  'span',
                  { class: 'ratio' },
                  c.baselineId ? `${percent(c.diffRatio)} of pixels differ` : 'nothing to compare with',
                ),
            c.textChangesTotal
              ? h(
                  'span',
                  { class: 'ratio' },
                  `${c.textChangesTotal.toLocaleString()} text change${c.textChangesTotal === 1 ? '' : 's'}`,
                )
              : null,
            h('span', { class: 'hint' }, `${c.status}${c.reason && c.reason !== 'schedule' ? ` · ${c.reason}` : ''}`),
          ),
          c.error ? h('span', { class: 'cap-error' }, `${c.error.code}: ${c.error.message}`) : null,
        ),
      );
    }),
  );
  $('captures-more').hidden = !hist.nextCursor;
  renderHistoryRun();
  markSelected();
  if (focusedId) list.querySelector(`button[data-capture="${CSS.escape(focusedId)}"]`)?.focus();
}

function markSelected() {
  for (const button of $('captures').querySelectorAll('button.capture')) {
    button.setAttribute('aria-pressed', String(button.dataset.capture === state.history?.selectedId));
  }
}

$('captures').addEventListener('click', (event) => {
  const button = event.target.closest('button.capture');
  if (button) selectCapture(button.dataset.capture);
});

// ------------------------------------------------------------------------------------------ viewer

/** blob: URLs of the selected capture's images, by kind; revoked when another capture is selected. */
let images = new Map();
let imageGeneration = 0;

function clearImages() {
  imageGeneration++;
  for (const entry of images.values())
    entry.then(
      (url) => url && URL.revokeObjectURL(url),
      () => {},
    );
  images = new Map();
  for (const id of ['single-img', 'compare-prev', 'compare-cur']) $(id).removeAttribute('src');
}

/** The image of a capture (`image`) or its diff (`diff`), fetched with the key, as a blob: URL. */
function imageUrl(captureId, which) {
  const cacheKey = `${captureId}/${which}`;
  if (!images.has(cacheKey)) {
    images.set(
      cacheKey,
      (async () => {
        const res = await call('GET', `/api/captures/${encodeURIComponent(captureId)}/${which}`);
        return URL.createObjectURL(await res.blob());
      })(),
    );
    images.get(cacheKey).catch(() => images.delete(cacheKey)); // a failed load may be tried again
  }
  return images.get(cacheKey);
}

function selectedCapture() {
  const hist = state.history;
  return hist?.captures.find((c) => c.id === hist.selectedId) ?? null;
}

function selectCapture(id) {
  const hist = state.history;
  if (!hist) return;
  if (hist.selectedId !== id) clearImages();
  hist.selectedId = id;
  markSelected();
  const c = selectedCapture();
  if (!c) return;
  $('viewer-empty').hidden = true;
  $('viewer-body').hidden = false;
  $('viewer-title').textContent = `Capture of ${absoluteTime(c.takenAt)}`;
  const facts = [
    ['Result', captureResult(c)],
    ['Taken', `${relativeTime(c.takenAt)} (${c.reason ?? 'schedule'}), in ${(c.durationMs / 1000).toFixed(1)} s`],
    c.width ? ['Size', `${c.width} × ${c.height} px${c.truncated ? ' (cut at the size limit)' : ''}`] : null,
    c.summary ? ['Text changed', c.summary] : null,
    c.baselineId && c.status !== 'failed'
      ? [
          'Pixels changed',
          `${c.diffPixels.toLocaleString()} (${percent(c.diffRatio)})${c.confirmed ? ', confirmed by a second capture' : ''}`,
        ]
      : null,
  ].filter(Boolean);
  $('viewer-meta').replaceChildren(...facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
  renderDetails(c, state.monitors.get(hist.monitorId));
  const available = viewsOf(c);
  for (const button of document.querySelectorAll('#viewer button[data-view]')) {
    const ok = available.has(button.dataset.view);
    button.disabled = !ok;
    button.title = ok ? '' : whyNot(c, button.dataset.view);
  }
  if (!available.has(hist.view)) hist.view = available.has('current') ? 'current' : ([...available][0] ?? 'current');
  showView(hist.view);
}

function viewsOf(c) {
  const views = new Set();
  if (c.status === 'failed' || !c.imageUrl) return views;
  views.add('current');
  if (c.baselineId) {
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

const VIEW_NOTES = {
  previous: 'The previous capture: the baseline this one was compared with.',
  current: 'This capture.',
  diff: 'Changed pixels in red on a faded copy of this capture; ignored areas tinted blue; regions outlined.',
  slider: 'The previous capture under this one: move the slider to reveal more or less of the current capture.',
};

async function showView(view) {
  const hist = state.history;
  const c = selectedCapture();
  if (!hist || !c) return;
  hist.view = view;
  hideOutline();
  for (const button of document.querySelectorAll('#viewer button[data-view]')) {
    button.setAttribute('aria-pressed', String(button.dataset.view === view));
  }
  const available = viewsOf(c);
  $('view-note').textContent = available.size ? VIEW_NOTES[view] : '';
  $('view-toolbar').hidden = !available.size;
  const slider = view === 'slider';
  $('single').hidden = slider || !available.size;
  $('zoom').hidden = slider;
  $('compare').hidden = !slider;
  const status = $('stage-status');
  if (!available.size) {
    status.replaceChildren(
      h(
        'div',
        { class: 'alert error' },
        `This capture failed, so it has no image. ${c.error ? `${c.error.code}: ${c.error.message}` : ''}`,
      ),
    );
    return;
  }
  const generation = imageGeneration;
  status.replaceChildren(
    h('span', { class: 'loading' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Loading image…'),
  );
  const when = absoluteTime(c.takenAt);
  try {
    if (slider) {
      const [prev, cur] = await Promise.all([imageUrl(c.baselineId, 'image'), imageUrl(c.id, 'image')]);
      if (generation !== imageGeneration || hist.view !== view) return;
      await Promise.all([
        setImage($('compare-prev'), prev, 'The previous capture (baseline)'),
        setImage($('compare-cur'), cur, `The capture of ${when}`),
      ]);
      sizeCompare();
      applySlider();
    } else {
      const src =
        view === 'previous'
          ? await imageUrl(c.baselineId, 'image')
          : await imageUrl(c.id, view === 'diff' ? 'diff' : 'image');
      if (generation !== imageGeneration || hist.view !== view) return;
      const label = {
        previous: 'The previous capture (baseline)',
        current: `The capture of ${when}`,
        diff: `Differences between the capture of ${when} and the previous one`,
      }[view];
      await setImage($('single-img'), src, label);
      $('single-caption').textContent =
        `${{ previous: 'Previous', current: 'Current', diff: 'Diff' }[view]} · ${$('single-img').naturalWidth} × ${$('single-img').naturalHeight} px`;
    }
    status.replaceChildren();
  } catch (err) {
    if (generation !== imageGeneration) return;
    if (err instanceof ApiError && err.status === 401) return handleError(err);
    status.replaceChildren(
      h(
        'div',
        { class: 'alert error' },
        `The image could not be loaded. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`,
      ),
    );
  }
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

for (const button of document.querySelectorAll('#viewer button[data-view]')) {
  button.addEventListener('click', () => showView(button.dataset.view));
}

// Fitted to the width, a capture's text is too small to read on a phone: at actual size (one image pixel
// per CSS pixel) the frame scrolls both ways instead.
$('zoom').addEventListener('click', () => {
  const actual = $('zoom').getAttribute('aria-pressed') !== 'true';
  $('zoom').setAttribute('aria-pressed', String(actual));
  $('single').classList.toggle('actual', actual);
});

/** The current image inside the reveal keeps the full width of the box, so only the reveal's width changes. */
function sizeCompare() {
  const width = $('compare-box').clientWidth;
  if (width) $('compare-cur').style.width = `${width}px`;
}

function applySlider() {
  const value = Number($('compare-range').value);
  $('compare-reveal').style.width = `${value}%`;
  $('compare-range').setAttribute('aria-valuetext', `${value} % of the current capture shown`);
}

$('compare-range').addEventListener('input', applySlider);
if ('ResizeObserver' in window) new ResizeObserver(sizeCompare).observe($('compare-box'));
