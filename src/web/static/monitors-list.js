// The monitor list: loading every page of it, drawing the rows in place (so the focus stays put), the
// 10 s refresh while visible, and each row's actions (pause, run now with its polling, delete).
import { describeSchedule } from '/assets/monitors-cron.js';
import { closeForm, openEdit } from '/assets/monitors-form.js';
import { closeHistory, followHistory, loadCaptures, openHistory, renderHistoryRun } from '/assets/monitors-history.js';
import { handleError } from '/assets/monitors-key.js';
import { lastResultBadge } from '/assets/monitors-verdict.js';
import {
  $,
  badge,
  call,
  captureResult,
  h,
  json,
  notice,
  relativeTime,
  setAlert,
  setButtonText,
  state,
  statusOf,
  timeEl,
} from '/assets/monitors-util.js';

const REFRESH_MS = 10_000;
const RUN_POLL_MS = 1_000;
const RUN_POLL_LIMIT_MS = 5 * 60_000;

/** Loads every page of the list (nextCursor followed), then redraws it. */
export function loadList() {
  if (state.listLoading) return state.listLoading;
  state.listLoading = (async () => {
    try {
      const all = [];
      let cursor = null;
      do {
        const page = await json(
          'GET',
          `/api/monitors?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        all.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      state.monitors = new Map(all.map((m) => [m.id, m]));
      state.loaded = true;
      setAlert($('key-error'), 'error', '');
      renderList();
      $('list-updated').textContent =
        `Updated ${new Date().toLocaleTimeString()}; refreshed every 10 s while this page is visible.`;
      await followHistory();
    } catch (err) {
      handleError(err, 'The monitors could not be loaded');
    } finally {
      state.listLoading = null;
    }
  })();
  return state.listLoading;
}

export function renderList() {
  const tbody = $('monitor-rows');
  const monitors = [...state.monitors.values()];
  $('list-section').hidden = false;
  $('list-empty').hidden = monitors.length > 0;
  $('list-wrap').hidden = monitors.length === 0;
  $('list-count').textContent = monitors.length ? `(${monitors.length})` : '';
  const existing = new Map([...tbody.children].map((row) => [row.dataset.id, row]));
  monitors.forEach((m, i) => {
    let row = existing.get(m.id);
    if (!row) row = createRow(m);
    existing.delete(m.id);
    updateRow(row, m);
    // Moved only when out of place: moving a row would take the focus off a button in it.
    if (tbody.children[i] !== row) tbody.insertBefore(row, tbody.children[i] ?? null);
  });
  for (const row of existing.values()) row.remove();
}

function createRow(m) {
  const action = (name) =>
    h('button', {
      type: 'button',
      class: `small${name === 'delete' ? ' danger' : ''}`,
      dataset: { action: name, id: m.id },
    });
  return h(
    'tr',
    { dataset: { id: m.id } },
    h(
      'td',
      { class: 'c-name', dataset: { label: 'Name' } },
      h('a', { class: 'name', target: '_blank', rel: 'noopener noreferrer' }),
      h('div', { class: 'url muted' }),
    ),
    // Each labelled cell holds one .v: on a phone the cell is a "label value" line.
    h('td', { class: 'c-status', dataset: { label: 'Status' } }, h('div', { class: 'v' })),
    h(
      'td',
      { class: 'c-schedule', dataset: { label: 'Schedule' } },
      h('div', { class: 'v' }, h('span', { class: 'words' }), h('code'), h('span', { class: 'tz muted' })),
    ),
    h('td', { class: 'c-last', dataset: { label: 'Last run' } }, h('div', { class: 'v' })),
    h('td', { class: 'c-change', dataset: { label: 'Last change' } }, h('div', { class: 'v' })),
    h('td', { class: 'c-next', dataset: { label: 'Next run' } }, h('div', { class: 'v' })),
    h(
      'td',
      { class: 'c-actions' },
      h(
        'div',
        { class: 'actions' },
        action('history'),
        action('run'),
        action('pause'),
        action('edit'),
        action('delete'),
      ),
    ),
  );
}

function updateRow(row, m) {
  const link = row.querySelector('a.name');
  link.textContent = m.name;
  link.href = m.url;
  link.title = `Open ${m.url} in a new tab`;
  const url = row.querySelector('.url');
  url.textContent = m.name === m.url ? '' : m.url;
  row.querySelector('.c-status .v').replaceChildren(
    badge(statusOf(m)),
    // Paused, the last result still shows: a paused monitor that last failed must not look fine.
    ...(m.paused && m.lastStatus ? [' ', lastResultBadge(m.lastStatus)] : []),
    ...(m.skippedRuns
      ? [
          h(
            'span',
            { class: 'hint skipped', title: 'Ticks skipped because the previous capture was still running' },
            `${m.skippedRuns} skipped`,
          ),
        ]
      : []),
  );
  // In words first (what a person reads), the expression and its zone below (what the API takes).
  const schedule = describeSchedule(m.schedule, m.timezone);
  row.querySelector('.c-schedule .words').textContent = schedule.ok ? schedule.words : '';
  row.querySelector('.c-schedule code').textContent = m.schedule;
  row.querySelector('.c-schedule .tz').textContent = schedule.ok ? '' : m.timezone;
  row.querySelector('.c-last .v').replaceChildren(timeEl(m.lastRunAt, 'never'));
  row.querySelector('.c-change .v').replaceChildren(timeEl(m.lastChangeAt, 'none'));
  row
    .querySelector('.c-next .v')
    .replaceChildren(m.paused ? h('span', { class: 'muted' }, 'paused') : timeEl(m.nextRunAt));
  const buttons = Object.fromEntries(
    [...row.querySelectorAll('button[data-action]')].map((b) => [b.dataset.action, b]),
  );
  setButtonText(buttons.history, 'History', `of ${m.name}`);
  const running = state.running.has(m.id);
  setButtonText(buttons.run, running ? 'Capturing…' : 'Run now', `${running ? 'of' : 'for'} ${m.name}`);
  buttons.run.disabled = running;
  buttons.run.setAttribute('aria-busy', String(running));
  setButtonText(buttons.pause, m.paused ? 'Resume' : 'Pause', m.name);
  setButtonText(buttons.edit, 'Edit', m.name);
  setButtonText(buttons.delete, 'Delete', m.name);
}

$('monitor-rows').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-action]');
  if (!button) return;
  const id = button.dataset.id;
  const actions = { history: openHistory, run: runNow, pause: togglePause, edit: openEdit, delete: askDelete };
  actions[button.dataset.action]?.(id, button);
});

$('refresh').addEventListener('click', () => loadList());

/** Live enough: the list is reloaded every 10 s while the page is visible, and at once when it shows again. */
setInterval(() => {
  if (document.visibilityState === 'visible' && state.key && state.loaded) loadList();
}, REFRESH_MS);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && state.key && state.loaded) loadList();
});

// ------------------------------------------------------------------------------------------ actions

async function togglePause(id) {
  const m = state.monitors.get(id);
  if (!m) return;
  try {
    const updated = await json('PATCH', `/api/monitors/${encodeURIComponent(id)}`, { paused: !m.paused });
    state.monitors.set(id, updated);
    renderList();
    notice(
      updated.paused
        ? `“${updated.name}” is paused: no scheduled captures until it is resumed.`
        : `“${updated.name}” is resumed; next run ${updated.nextRunAt ? relativeTime(updated.nextRunAt) : 'soon'}.`,
    );
  } catch (err) {
    handleError(err, `“${m.name}” could not be ${m.paused ? 'resumed' : 'paused'}`);
  }
}

async function newestCapture(id) {
  const page = await json('GET', `/api/monitors/${encodeURIComponent(id)}/captures?limit=1`);
  return page.items[0] ?? null;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** POST …/run, then poll the captures until a new one is there. */
export async function runNow(id) {
  const m = state.monitors.get(id);
  if (!m || state.running.has(id)) return;
  state.running.add(id);
  renderList();
  renderHistoryRun();
  try {
    const before = (await newestCapture(id))?.id ?? null;
    const run = await json('POST', `/api/monitors/${encodeURIComponent(id)}/run`);
    notice(
      run.alreadyPending
        ? `A capture of “${m.name}” was already queued; waiting for it…`
        : `Capture of “${m.name}” queued; waiting for it…`,
      'warn',
    );
    const deadline = Date.now() + RUN_POLL_LIMIT_MS;
    let capture = null;
    while (Date.now() < deadline) {
      await sleep(RUN_POLL_MS);
      if (!state.monitors.has(id) || !state.key) return; // deleted or signed out meanwhile
      const newest = await newestCapture(id);
      if (newest && newest.id !== before) {
        capture = newest;
        break;
      }
    }
    if (!capture) {
      notice(`The capture of “${m.name}” is taking long; it will show up in the history when done.`, 'warn');
      return;
    }
    notice(
      capture.status === 'failed'
        ? `The capture of “${m.name}” failed: ${(capture.error?.message ?? 'unknown error').replace(/\.$/, '')}.`
        : `New capture of “${m.name}”: ${captureResult(capture)}.`,
      capture.status === 'failed' ? 'error' : 'ok',
    );
    if (state.history?.monitorId === id) await loadCaptures({ select: capture.id });
  } catch (err) {
    handleError(err, `“${m.name}” could not be captured`);
  } finally {
    state.running.delete(id);
    if (state.monitors.has(id)) await loadList();
    renderHistoryRun();
  }
}

let deleting = null;
function askDelete(id, opener) {
  const m = state.monitors.get(id);
  if (!m) return;
  deleting = { id, opener };
  $('delete-title').textContent = `Delete “${m.name}”?`;
  $('delete-text').textContent =
    'The monitor stops, and all its captures and images are deleted. This cannot be undone.';
  $('delete-dialog').returnValue = '';
  $('delete-dialog').showModal();
}

$('delete-dialog').addEventListener('close', async () => {
  const target = deleting;
  deleting = null;
  if (!target) return;
  const m = state.monitors.get(target.id);
  if ($('delete-dialog').returnValue !== 'delete' || !m) {
    target.opener?.focus();
    return;
  }
  try {
    await call('DELETE', `/api/monitors/${encodeURIComponent(target.id)}`);
    state.monitors.delete(target.id);
    if (state.history?.monitorId === target.id) closeHistory(false);
    if (state.editing === target.id) closeForm(false);
    renderList();
    notice(`“${m.name}” and its captures were deleted.`);
    ($('monitor-rows').querySelector('button[data-action="history"]') ?? $('new-monitor')).focus();
  } catch (err) {
    handleError(err, `“${m.name}” could not be deleted`);
  }
});
