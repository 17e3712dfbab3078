// A monitor's history: its captures (newest first, Load more), each with its verdict's badge, and which
// one is selected; the selected capture itself is shown by monitors-viewer.js.
import { closeDeliveries, followDeliveries, openDeliveries } from '/assets/monitors-deliveries.js';
import { handleError } from '/assets/monitors-key.js';
import { runNow } from '/assets/monitors-list.js';
import { cropsDrawn } from '/assets/monitors-region-zoom.js';
import { listWords, verdictBadge, verdictOf } from '/assets/monitors-verdict.js';
import { clearImages, selectCapture } from '/assets/monitors-viewer.js';
import { $, absoluteTime, h, json, setButtonText, state, timeEl } from '/assets/monitors-util.js';

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
  await cropsDrawn();
  revealVerdict(id);
}

/**
 * Once the newest capture is shown: the history's top in view (the first scroll happened while the
 * section was still empty, so the page may have been too short for it), and when that leaves the verdict
 * or the selected region's crops below the fold (a phone: the captures come first), the viewer instead,
 * with the focus on its title.
 */
function revealVerdict(id) {
  if (state.history?.monitorId !== id || $('viewer-body').hidden) return;
  $('history-section').scrollIntoView({ block: 'start' });
  const seen = $('region-zoom').hidden ? $('verdict') : $('region-zoom');
  if (seen.getBoundingClientRect().bottom > window.innerHeight) {
    $('viewer-title').scrollIntoView({ block: 'start' });
    $('viewer-title').focus();
  }
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
  const m = state.monitors.get(hist.monitorId);
  const focusedId = list.contains(document.activeElement) ? document.activeElement.dataset.capture : null;
  list.replaceChildren(
    ...hist.captures.map((c) => {
      // The verdict's kind: a difference under the threshold does not look like "no difference at all".
      const { kind } = verdictOf(c, m);
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
            verdictBadge(kind),
            c.status === 'failed' ? null : h('span', { class: 'ratio' }, listWords(c, kind)),
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

export function markSelected() {
  for (const button of $('captures').querySelectorAll('button.capture')) {
    button.setAttribute('aria-pressed', String(button.dataset.capture === state.history?.selectedId));
  }
}

$('captures').addEventListener('click', (event) => {
  const button = event.target.closest('button.capture');
  if (button) selectCapture(button.dataset.capture);
});
