// The selected capture in the history: its verdict, facts and details, and the previous / current / diff /
// slider views of its images (fetched with the key as blob: URLs), fitted or at actual size.
import { ApiError } from '/assets/api.js';
import { renderDetails } from '/assets/monitors-capture-details.js';
import { markSelected } from '/assets/monitors-history.js';
import { clearImages as clearCachedImages, imageGeneration, imageUrl } from '/assets/monitors-images.js';
import { handleError } from '/assets/monitors-key.js';
import { hideOutline } from '/assets/monitors-outline.js';
import { positionViews, selectRegion } from '/assets/monitors-region-zoom.js';
import { renderVerdict } from '/assets/monitors-verdict.js';
import { $, absoluteTime, h, percent, relativeTime, state } from '/assets/monitors-util.js';

export function clearImages() {
  clearCachedImages();
  for (const id of ['single-img', 'compare-prev', 'compare-cur']) $(id).removeAttribute('src');
}

function selectedCapture() {
  const hist = state.history;
  return hist?.captures.find((c) => c.id === hist.selectedId) ?? null;
}

export function selectCapture(id) {
  const hist = state.history;
  if (!hist) return;
  if (hist.selectedId !== id) {
    clearImages();
    hist.regionIndex = 0;
  }
  hist.selectedId = id;
  markSelected();
  const c = selectedCapture();
  if (!c) return;
  $('viewer-empty').hidden = true;
  $('viewer-body').hidden = false;
  $('viewer-title').textContent = `Capture of ${absoluteTime(c.takenAt)}`;
  const m = state.monitors.get(hist.monitorId);
  renderVerdict(c, m);
  const facts = [
    ['Taken', `${relativeTime(c.takenAt)} (${c.reason ?? 'schedule'}), in ${(c.durationMs / 1000).toFixed(1)} s`],
    c.width ? ['Size', `${c.width} × ${c.height} px${c.truncated ? ' (cut at the size limit)' : ''}`] : null,
    c.summary ? ['Text changed', c.summary] : null,
    c.baselineId && c.status !== 'failed'
      ? [
          'Pixels that differ',
          `${c.diffPixels.toLocaleString('en')} (${percent(c.diffRatio)}) in ${c.regions?.length ?? 0} region${c.regions?.length === 1 ? '' : 's'}`,
        ]
      : null,
  ].filter(Boolean);
  $('viewer-meta').replaceChildren(...facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
  renderDetails(c, m);
  selectRegion(c.regions?.length ? (hist.regionIndex ?? 0) : null);
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
      positionViews();
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
      positionViews();
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
  positionViews(); // the selected region stays in the frame
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
