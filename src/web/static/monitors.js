// The monitor dashboard (/monitors): list, create, edit, pause, run now, delete, and the history of a
// monitor with previous / current / diff views and a slider compare. It uses the same public API as any
// client, with the key the user pastes (kept in localStorage by api.js).
import { api, ApiError, storedKey, storeKey } from '/assets/api.js';

const $ = (id) => document.getElementById(id);
const REFRESH_MS = 10_000;
const RUN_POLL_MS = 1_000;
const RUN_POLL_LIMIT_MS = 5 * 60_000;
const CAPTURES_PAGE = 20;

const state = {
  key: storedKey(),
  /** id → monitor, in list order */
  monitors: new Map(),
  loaded: false,
  /** null: create; else the id of the monitor being edited */
  editing: null,
  /** monitor ids whose Run now is being followed */
  running: new Set(),
  /** { monitorId, captures, nextCursor, selectedId, view, lastRunAt } */
  history: null,
  listLoading: null,
};

// ---------------------------------------------------------------------------------------- helpers

/** Builds an element: h('a', {href, class: 'x'}, 'text', child…). Text always goes in as text. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A button's visible words plus words for screen readers only ("Edit" + " Pricing page"). */
function setButtonText(button, visible, hidden) {
  button.replaceChildren(document.createTextNode(visible), ...(hidden ? [h('span', { class: 'sr-only' }, ` ${hidden}`)] : []));
}

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS = [['year', 31_536_000], ['month', 2_592_000], ['week', 604_800], ['day', 86_400], ['hour', 3_600], ['minute', 60], ['second', 1]];

function relativeTime(iso) {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  if (Math.abs(seconds) < 45) return seconds < 0 ? 'just now' : 'in a few seconds';
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return rtf.format(Math.round(seconds / size), unit);
  }
  return iso;
}

const absoluteFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' });
const absoluteTime = (iso) => absoluteFormat.format(new Date(iso));

/** <time> with the relative time shown and the absolute one in its title; "—" (and a reason) when absent. */
function timeEl(iso, absent = '—') {
  if (!iso) return h('span', { class: 'muted' }, absent);
  return h('time', { datetime: iso, title: absoluteTime(iso) }, relativeTime(iso));
}

const percent = (ratio) => {
  const p = ratio * 100;
  if (p === 0) return '0 %';
  if (p < 0.01) return '< 0.01 %';
  return `${p < 1 ? p.toFixed(2) : p < 10 ? p.toFixed(1) : p.toFixed(0)} %`;
};

const STATUS_BADGE = {
  paused: ['paused', 'paused'], baseline: ['baseline', 'info'], unchanged: ['unchanged', 'ok'],
  changed: ['changed', 'warn'], failed: ['failed', 'error'], none: ['not run yet', 'none'],
};

function statusOf(m) {
  if (m.paused) return 'paused';
  return m.lastStatus ?? 'none';
}

function badge(kind, text) {
  const [words, style] = STATUS_BADGE[kind] ?? [kind, 'none'];
  return h('span', { class: `badge ${style}`, dataset: { status: kind } }, text ?? words);
}

function setAlert(el, kind, message, extra) {
  el.replaceChildren();
  if (!message) return;
  el.append(h('div', { class: `alert ${kind}` }, message, extra));
}

let noticeTimer;
/** A passing message, announced politely. */
function notice(message, kind = 'ok') {
  clearTimeout(noticeTimer);
  setAlert($('notice'), kind, message);
  noticeTimer = setTimeout(() => $('notice').replaceChildren(), 12_000);
}

function pageError(message) {
  setAlert($('page-error'), 'error', message);
}

/** The key was refused: say so where the key is, and hide what needs it. */
function unauthorized(err) {
  const sent = Boolean(state.key);
  setAlert($('key-error'), 'error', sent
    ? 'This API key was refused: the key is unknown or revoked. Paste a valid key, or forget this one.'
    : 'An API key is needed to see monitors: paste one above.',
  err?.message ? h('span', { class: 'sr-only' }, ` (${err.message})`) : null);
  showSignedOut();
}

/** Every API error not handled where it happened. */
function handleError(err, context) {
  if (err instanceof ApiError && err.status === 401) return unauthorized(err);
  const words = err instanceof ApiError ? err.explanation : String(err?.message ?? err);
  pageError(context ? `${context}: ${words}` : words);
}

const call = (method, path, body) => api(method, path, { key: state.key, body });
const json = async (method, path, body) => (await call(method, path, body)).json();

// --------------------------------------------------------------------------------------------- key

function renderKeyState() {
  const key = state.key;
  $('key-state').textContent = key ? `A key is saved in this browser (${key.slice(0, 12)}…).` : 'No key saved.';
  $('key-forget').disabled = !key;
  $('key-input').placeholder = key ? 'Saved — paste another key to replace it' : 'pw_live_…';
}

function showSignedOut() {
  $('list-section').hidden = true;
  $('form-section').hidden = true;
  closeHistory(false);
  state.monitors.clear();
  state.loaded = false;
  $('monitor-rows').replaceChildren();
}

$('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = $('key-input').value.trim();
  if (!key) {
    setAlert($('key-error'), 'error', 'Paste an API key first.');
    $('key-input').focus();
    return;
  }
  const save = $('key-save');
  save.disabled = true;
  const before = state.key;
  state.key = key;
  try {
    await call('GET', '/api/monitors?limit=1');
  } catch (err) {
    save.disabled = false;
    if (err instanceof ApiError && err.status === 401) {
      state.key = before;
      setAlert($('key-error'), 'error', 'This API key was refused: the key is unknown or revoked. It was not saved.');
      showSignedOut();
      $('key-input').focus();
      $('key-input').select();
      return;
    }
    state.key = before;
    handleError(err, 'The key could not be checked');
    return;
  }
  save.disabled = false;
  storeKey(key);
  $('key-input').value = '';
  setAlert($('key-error'), 'error', '');
  renderKeyState();
  notice('Key saved in this browser.');
  await showSignedIn();
});

$('key-forget').addEventListener('click', () => {
  storeKey('');
  state.key = '';
  renderKeyState();
  showSignedOut();
  setAlert($('key-error'), 'error', '');
  setAlert($('page-error'), 'error', '');
  notice('The key was removed from this browser.');
  $('key-input').focus();
});

async function showSignedIn() {
  setAlert($('page-error'), 'error', '');
  $('list-section').hidden = false;
  await loadList();
}

// -------------------------------------------------------------------------------------------- list

/** Loads every page of the list (nextCursor followed), then redraws it. */
function loadList() {
  if (state.listLoading) return state.listLoading;
  state.listLoading = (async () => {
    try {
      const all = [];
      let cursor = null;
      do {
        const page = await json('GET', `/api/monitors?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        all.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      state.monitors = new Map(all.map((m) => [m.id, m]));
      state.loaded = true;
      setAlert($('key-error'), 'error', '');
      renderList();
      $('list-updated').textContent = `Updated ${new Date().toLocaleTimeString()}; refreshed every 10 s while this page is visible.`;
      await followHistory();
    } catch (err) {
      handleError(err, 'The monitors could not be loaded');
    } finally {
      state.listLoading = null;
    }
  })();
  return state.listLoading;
}

function renderList() {
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
  const action = (name) => h('button', { type: 'button', class: `small${name === 'delete' ? ' danger' : ''}`, dataset: { action: name, id: m.id } });
  return h('tr', { dataset: { id: m.id } },
    h('td', { class: 'c-name', dataset: { label: 'Name' } },
      h('a', { class: 'name', target: '_blank', rel: 'noopener noreferrer' }), h('div', { class: 'url muted' })),
    // Each labelled cell holds one .v: on a phone the cell is a "label value" line.
    h('td', { class: 'c-status', dataset: { label: 'Status' } }, h('div', { class: 'v' })),
    h('td', { class: 'c-schedule', dataset: { label: 'Schedule' } }, h('div', { class: 'v' }, h('code'), h('span', { class: 'tz muted' }))),
    h('td', { class: 'c-last', dataset: { label: 'Last run' } }, h('div', { class: 'v' })),
    h('td', { class: 'c-change', dataset: { label: 'Last change' } }, h('div', { class: 'v' })),
    h('td', { class: 'c-next', dataset: { label: 'Next run' } }, h('div', { class: 'v' })),
    h('td', { class: 'c-actions' }, h('div', { class: 'actions' },
      action('history'), action('run'), action('pause'), action('edit'), action('delete'))),
  );
}

function updateRow(row, m) {
  const link = row.querySelector('a.name');
  link.textContent = m.name;
  link.href = m.url;
  link.title = `Open ${m.url} in a new tab`;
  const url = row.querySelector('.url');
  url.textContent = m.name === m.url ? '' : m.url;
  row.querySelector('.c-status .v').replaceChildren(badge(statusOf(m)),
    ...(m.skippedRuns ? [h('span', { class: 'hint skipped', title: 'Ticks skipped because the previous capture was still running' }, `${m.skippedRuns} skipped`)] : []));
  row.querySelector('.c-schedule code').textContent = m.schedule;
  row.querySelector('.c-schedule .tz').textContent = m.timezone;
  row.querySelector('.c-last .v').replaceChildren(timeEl(m.lastRunAt, 'never'));
  row.querySelector('.c-change .v').replaceChildren(timeEl(m.lastChangeAt, 'none'));
  row.querySelector('.c-next .v').replaceChildren(m.paused ? h('span', { class: 'muted' }, 'paused') : timeEl(m.nextRunAt));
  const buttons = Object.fromEntries([...row.querySelectorAll('button[data-action]')].map((b) => [b.dataset.action, b]));
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
    notice(updated.paused ? `“${updated.name}” is paused: no scheduled captures until it is resumed.`
      : `“${updated.name}” is resumed; next run ${updated.nextRunAt ? relativeTime(updated.nextRunAt) : 'soon'}.`);
  } catch (err) {
    handleError(err, `“${m.name}” could not be ${m.paused ? 'resumed' : 'paused'}`);
  }
}

async function newestCaptureId(id) {
  const page = await json('GET', `/api/monitors/${encodeURIComponent(id)}/captures?limit=1`);
  return page.items[0]?.id ?? null;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** POST …/run, then poll the captures until a new one is there. */
async function runNow(id) {
  const m = state.monitors.get(id);
  if (!m || state.running.has(id)) return;
  state.running.add(id);
  renderList();
  renderHistoryRun();
  try {
    const before = await newestCaptureId(id);
    const run = await json('POST', `/api/monitors/${encodeURIComponent(id)}/run`);
    notice(run.alreadyPending ? `A capture of “${m.name}” was already queued; waiting for it…` : `Capture of “${m.name}” queued; waiting for it…`, 'warn');
    const deadline = Date.now() + RUN_POLL_LIMIT_MS;
    let capture = null;
    while (Date.now() < deadline) {
      await sleep(RUN_POLL_MS);
      if (!state.monitors.has(id) || !state.key) return; // deleted or signed out meanwhile
      const page = await json('GET', `/api/monitors/${encodeURIComponent(id)}/captures?limit=1`);
      if (page.items[0] && page.items[0].id !== before) {
        capture = page.items[0];
        break;
      }
    }
    if (!capture) {
      notice(`The capture of “${m.name}” is taking long; it will show up in the history when done.`, 'warn');
      return;
    }
    notice(capture.status === 'failed'
      ? `The capture of “${m.name}” failed: ${capture.error?.message ?? 'unknown error'}.`
      : `New capture of “${m.name}”: ${captureResult(capture)}.`, capture.status === 'failed' ? 'error' : 'ok');
    if (state.history?.monitorId === id) await loadCaptures({ select: capture.id });
  } catch (err) {
    handleError(err, `“${m.name}” could not be captured`);
  } finally {
    state.running.delete(id);
    if (state.monitors.has(id)) await loadList();
    renderHistoryRun();
  }
}

function captureResult(c) {
  if (c.status === 'failed') return 'failed';
  if (!c.baselineId) return 'baseline (first capture to compare with)';
  return c.changed ? `changed, ${percent(c.diffRatio)} of the pixels` : 'unchanged';
}

let deleting = null;
function askDelete(id, opener) {
  const m = state.monitors.get(id);
  if (!m) return;
  deleting = { id, opener };
  $('delete-title').textContent = `Delete “${m.name}”?`;
  $('delete-text').textContent = 'The monitor stops, and all its captures and images are deleted. This cannot be undone.';
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

// -------------------------------------------------------------------------------------------- form

/** Where each field of the API shows its error: API path → [input id, error element id]. */
const FIELDS = {
  name: ['f-name', 'f-name-error'],
  url: ['f-url', 'f-url-error'],
  schedule: ['f-schedule', 'f-schedule-error'],
  timezone: ['f-timezone', 'f-timezone-error'],
  'capture.fullPage': ['f-fullpage', 'f-fullpage-error'],
  'capture.viewport.width': ['f-vw', 'f-vw-error'],
  'capture.viewport.height': ['f-vh', 'f-vh-error'],
  'capture.viewport': ['f-vw', 'f-vw-error'],
  'diff.ignoreSelectors': ['f-ignore', 'f-ignore-error'],
  'diff.threshold': ['f-threshold', 'f-threshold-error'],
  'diff.minChangeRatio': ['f-minratio', 'f-minratio-error'],
  'diff.confirm': ['f-confirm', 'f-confirm-error'],
  notify: ['f-notify-change', 'f-notify-error'],
  webhookUrl: ['f-webhook', 'f-webhook-error'],
  'retention.keep': ['f-keep', 'f-keep-error'],
  retention: ['f-keep', 'f-keep-error'],
};
const FIELD_ORDER = ['f-name', 'f-url', 'f-schedule', 'f-timezone', 'f-fullpage', 'f-vw', 'f-vh', 'f-ignore',
  'f-threshold', 'f-minratio', 'f-confirm', 'f-notify-change', 'f-webhook', 'f-keep'];

/** The field of an API path: the longest known prefix ("diff.ignoreSelectors.2" → diff.ignoreSelectors). */
function fieldOf(path) {
  const parts = String(path ?? '').split('.');
  while (parts.length) {
    const field = FIELDS[parts.join('.')];
    if (field) return field;
    parts.pop();
  }
  return null;
}

function describedBy(input, errorId, on) {
  const ids = new Set((input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean));
  if (on) ids.add(errorId); else ids.delete(errorId);
  if (ids.size) input.setAttribute('aria-describedby', [...ids].join(' ')); else input.removeAttribute('aria-describedby');
}

function clearFieldErrors() {
  setAlert($('form-error'), 'error', '');
  for (const [inputId, errorId] of Object.values(FIELDS)) {
    const input = $(inputId);
    input.removeAttribute('aria-invalid');
    describedBy(input, errorId, false);
    $(errorId).textContent = '';
    $(errorId).hidden = true;
  }
  for (const box of document.querySelectorAll('#f-notify-group input')) box.removeAttribute('aria-invalid');
}

/** Shows each problem next to its field (aria-invalid, .field-error) and focuses the first one. */
function showFieldErrors(problems, summary) {
  clearFieldErrors();
  const unplaced = [];
  const invalid = new Set();
  for (const { path, message } of problems) {
    const field = fieldOf(path);
    if (!field) {
      unplaced.push(path ? `${path}: ${message}` : message);
      continue;
    }
    const [inputId, errorId] = field;
    const input = $(inputId);
    const error = $(errorId);
    error.textContent = error.textContent ? `${error.textContent} ${message}` : message;
    error.hidden = false;
    input.setAttribute('aria-invalid', 'true');
    if (inputId === 'f-notify-change') for (const box of document.querySelectorAll('#f-notify-group input[name="notify"]')) box.setAttribute('aria-invalid', 'true');
    describedBy(input, errorId, true);
    invalid.add(inputId);
  }
  const count = problems.length;
  setAlert($('form-error'), 'error', summary ?? `The monitor was not saved: ${count} field${count === 1 ? ' needs' : 's need'} fixing.`,
    unplaced.length ? h('ul', {}, unplaced.map((text) => h('li', {}, text))) : null);
  const first = FIELD_ORDER.find((id) => invalid.has(id));
  if (first) $(first).focus();
  else $('form-error').scrollIntoView({ block: 'nearest' });
}

function fillTimezones() {
  let zones = [];
  try { zones = Intl.supportedValuesOf('timeZone'); } catch { zones = []; }
  $('timezones').replaceChildren(...['UTC', ...zones.filter((z) => z !== 'UTC')].map((z) => h('option', { value: z })));
}

function openCreate() {
  state.editing = null;
  const form = $('monitor-form');
  form.reset();
  clearFieldErrors();
  let tz = 'UTC';
  try { tz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'; } catch { /* keep UTC */ }
  $('f-timezone').value = tz;
  $('form-title').textContent = 'New monitor';
  $('form-submit').textContent = 'Create monitor';
  showForm();
}

async function openEdit(id) {
  let m = state.monitors.get(id);
  try {
    m = await json('GET', `/api/monitors/${encodeURIComponent(id)}`);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status === 401 || err.status === 404) return handleError(err, 'The monitor could not be opened');
  }
  if (!m) return;
  state.editing = id;
  clearFieldErrors();
  $('f-name').value = m.name === m.url ? '' : m.name;
  $('f-url').value = m.url;
  $('f-schedule').value = m.schedule;
  $('f-timezone').value = m.timezone;
  $('f-fullpage').checked = Boolean(m.capture?.fullPage);
  $('f-vw').value = m.capture?.viewport?.width ?? '';
  $('f-vh').value = m.capture?.viewport?.height ?? '';
  $('f-ignore').value = (m.diff?.ignoreSelectors ?? []).join('\n');
  $('f-threshold').value = m.diff?.threshold ?? '';
  $('f-minratio').value = m.diff?.minChangeRatio ?? '';
  $('f-confirm').checked = m.diff?.confirm ?? true;
  for (const box of document.querySelectorAll('#f-notify-group input[name="notify"]')) box.checked = (m.notify ?? []).includes(box.value);
  $('f-webhook').value = m.webhookUrl ?? '';
  $('f-keep').value = m.retention?.keep ?? '';
  $('form-title').textContent = `Edit “${m.name}”`;
  $('form-submit').textContent = 'Save changes';
  showForm();
}

function showForm() {
  $('form-section').hidden = false;
  $('form-section').scrollIntoView({ block: 'start' });
  $('form-title').focus();
}

function closeForm(refocus = true) {
  $('form-section').hidden = true;
  clearFieldErrors();
  const editing = state.editing;
  state.editing = null;
  if (refocus) {
    const back = editing && $('monitor-rows').querySelector(`button[data-action="edit"][data-id="${CSS.escape(editing)}"]`);
    (back ?? $('new-monitor')).focus();
  }
}

/** A number field: its number, '' for empty, or the text as typed (so the API names what is wrong). */
function numberOf(input) {
  const raw = input.value.trim();
  if (raw === '') return '';
  const n = Number(raw);
  return Number.isFinite(n) ? n : raw;
}

/**
 * The body from the form: only the form's fields. On create, empty optional fields are left out (the
 * service's defaults apply); on edit they are sent as null (JSON Merge Patch: removed, so the default applies).
 */
function formBody(editing) {
  const empty = editing ? null : undefined;
  const text = (id) => $(id).value.trim();
  const num = (id) => {
    const value = numberOf($(id));
    return value === '' ? empty : value;
  };
  const body = {
    name: text('f-name') || empty,
    url: text('f-url'),
    schedule: text('f-schedule').replace(/\s+/g, ' '),
    timezone: text('f-timezone') || 'UTC',
    capture: { fullPage: $('f-fullpage').checked },
    diff: {
      ignoreSelectors: $('f-ignore').value.split('\n').map((line) => line.trim()).filter(Boolean),
      threshold: num('f-threshold'),
      minChangeRatio: num('f-minratio'),
      confirm: $('f-confirm').checked,
    },
    notify: [...document.querySelectorAll('#f-notify-group input[name="notify"]:checked')].map((box) => box.value),
    webhookUrl: text('f-webhook') || empty,
    retention: { keep: num('f-keep') },
  };
  const vw = num('f-vw');
  const vh = num('f-vh');
  if (vw !== undefined && vw !== null || vh !== undefined && vh !== null) {
    body.capture.viewport = { ...(vw !== null && vw !== undefined && { width: vw }), ...(vh !== null && vh !== undefined && { height: vh }) };
  } else if (editing) {
    body.capture.viewport = null;
  }
  return prune(body);
}

/** Drops undefined members, and objects left empty by that. */
function prune(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const pruned = prune(v);
    if (pruned !== null && typeof pruned === 'object' && !Array.isArray(pruned) && Object.keys(pruned).length === 0) continue;
    out[k] = pruned;
  }
  return out;
}

/** What the browser can tell before asking: required fields. The service checks everything else. */
function localProblems() {
  const problems = [];
  if (!$('f-url').value.trim()) problems.push({ path: 'url', message: 'Enter the address of the page to watch (http or https).' });
  if (!$('f-schedule').value.trim()) problems.push({ path: 'schedule', message: 'Enter a cron schedule, e.g. "*/15 * * * *".' });
  // Text in a number field that the browser could not read as a number reaches the script as "".
  for (const [path, [inputId]] of Object.entries(FIELDS)) {
    const input = $(inputId);
    if (input.type === 'number' && input.validity.badInput && !problems.some((p) => fieldOf(p.path)?.[0] === inputId)) {
      problems.push({ path, message: 'Enter a number.' });
    }
  }
  return problems;
}

$('monitor-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const editing = state.editing;
  const problems = localProblems();
  if (problems.length) return showFieldErrors(problems);
  const submit = $('form-submit');
  submit.disabled = true;
  submit.setAttribute('aria-busy', 'true');
  try {
    const body = formBody(editing !== null);
    const saved = editing
      ? await json('PATCH', `/api/monitors/${encodeURIComponent(editing)}`, body)
      : await json('POST', '/api/monitors', body);
    closeForm(false);
    state.monitors.set(saved.id, saved);
    await loadList();
    if (!state.monitors.has(saved.id)) { state.monitors.set(saved.id, saved); renderList(); }
    notice(editing ? `“${saved.name}” was saved.`
      : `“${saved.name}” was created; ${saved.nextRunAt ? `first scheduled capture ${relativeTime(saved.nextRunAt)}` : 'it is paused'}. Use Run now to capture it at once.`);
    const row = $('monitor-rows').querySelector(`tr[data-id="${CSS.escape(saved.id)}"]`);
    row?.querySelector(editing ? 'button[data-action="edit"]' : 'a.name')?.focus();
    if (state.history?.monitorId === saved.id) {
      $('history-title').textContent = `History of “${saved.name}”`;
      await loadCaptures({ select: state.history.selectedId });
    }
  } catch (err) {
    if (err instanceof ApiError && err.code === 'invalid_request' && err.details?.length) {
      showFieldErrors(err.details);
    } else if (err instanceof ApiError && err.code === 'url_blocked') {
      showFieldErrors([{ path: 'url', message: err.explanation }], 'The monitor was not saved: the service may not fetch this URL.');
    } else if (err instanceof ApiError && err.status === 401) {
      handleError(err);
    } else {
      clearFieldErrors();
      setAlert($('form-error'), 'error', `The monitor was not saved. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`);
      $('form-error').scrollIntoView({ block: 'nearest' });
    }
  } finally {
    submit.disabled = false;
    submit.removeAttribute('aria-busy');
  }
});

$('form-cancel').addEventListener('click', () => closeForm());
$('new-monitor').addEventListener('click', openCreate);
$('monitor-form').addEventListener('click', (event) => {
  const example = event.target.closest('button[data-cron]');
  if (!example) return;
  $('f-schedule').value = example.dataset.cron;
  $('f-schedule').focus();
});

// ----------------------------------------------------------------------------------------- history

async function openHistory(id) {
  const m = state.monitors.get(id);
  if (!m) return;
  if (state.history?.monitorId !== id) {
    clearImages();
    state.history = { monitorId: id, captures: [], nextCursor: null, selectedId: null, view: 'current', lastRunAt: m.lastRunAt ?? null };
    $('captures').replaceChildren();
    $('viewer-body').hidden = true;
    $('viewer-empty').hidden = false;
  }
  $('history-title').textContent = `History of “${m.name}”`;
  $('history-url').replaceChildren(h('a', { href: m.url, target: '_blank', rel: 'noopener noreferrer' }, m.url),
    ` · ${m.schedule} (${m.timezone})`);
  $('history-section').hidden = false;
  renderHistoryRun();
  $('history-section').scrollIntoView({ block: 'start' });
  $('history-title').focus();
  await loadCaptures({ select: state.history.selectedId });
}

function closeHistory(refocus = true) {
  const id = state.history?.monitorId;
  clearImages();
  state.history = null;
  $('history-section').hidden = true;
  if (refocus && id) $('monitor-rows').querySelector(`button[data-action="history"][data-id="${CSS.escape(id)}"]`)?.focus();
}

$('history-close').addEventListener('click', () => closeHistory());
$('history-run').addEventListener('click', () => state.history && runNow(state.history.monitorId));

function renderHistoryRun() {
  const button = $('history-run');
  const id = state.history?.monitorId;
  const running = Boolean(id && state.running.has(id));
  setButtonText(button, running ? 'Capturing…' : 'Run now');
  if (running) button.prepend(h('span', { class: 'spinner', 'aria-hidden': 'true' }));
  button.disabled = running;
  button.setAttribute('aria-busy', String(running));
  $('captures').querySelector('.pending')?.remove();
  if (running) {
    $('captures').prepend(h('li', { class: 'pending' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Capture queued or running…'));
    $('captures-empty').hidden = true;
  } else if (state.history) {
    $('captures-empty').hidden = state.history.captures.length > 0;
  }
}

/** The history follows the list: when the monitor ran since (a scheduled capture), its first page reloads. */
async function followHistory() {
  const hist = state.history;
  if (!hist) return;
  const m = state.monitors.get(hist.monitorId);
  if (!m) return closeHistory(false);
  if ((m.lastRunAt ?? null) !== hist.lastRunAt && !state.running.has(m.id)) {
    await loadCaptures({ select: hist.selectedId });
  }
}

/** Reloads the first page of captures (or, with more, appends the next page). */
async function loadCaptures({ select = null, more = false } = {}) {
  const hist = state.history;
  if (!hist) return;
  const id = hist.monitorId;
  try {
    const cursor = more ? hist.nextCursor : null;
    const page = await json('GET', `/api/monitors/${encodeURIComponent(id)}/captures?limit=${CAPTURES_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (state.history !== hist) return;
    // A reload shows the first page again (newest first); older pages come back with Load more.
    hist.captures = more ? [...hist.captures, ...page.items] : page.items;
    hist.nextCursor = page.nextCursor;
    hist.lastRunAt = state.monitors.get(id)?.lastRunAt ?? hist.lastRunAt;
    renderCaptures();
    const target = (select && hist.captures.find((c) => c.id === select)) ?? (hist.selectedId ? hist.captures.find((c) => c.id === hist.selectedId) : null) ?? hist.captures[0];
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
  list.replaceChildren(...hist.captures.map((c) => {
    const result = c.status === 'failed' ? badge('failed')
      : !c.baselineId ? badge('baseline')
        : c.changed ? badge('changed') : badge('unchanged');
    return h('li', {},
      h('button', { type: 'button', class: 'capture', dataset: { capture: c.id }, 'aria-pressed': 'false' },
        h('span', { class: 'cap-time' }, timeEl(c.takenAt), h('span', { class: 'hint abs' }, absoluteTime(c.takenAt))),
        h('span', { class: 'cap-facts' },
          result,
          c.status === 'failed' ? null : h('span', { class: 'ratio' }, c.baselineId ? `${percent(c.diffRatio)} of pixels differ` : 'nothing to compare with'),
          h('span', { class: 'hint' }, `${c.status}${c.reason && c.reason !== 'schedule' ? ` · ${c.reason}` : ''}`)),
        c.error ? h('span', { class: 'cap-error' }, `${c.error.code}: ${c.error.message}`) : null));
  }));
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
  for (const entry of images.values()) entry.then((url) => url && URL.revokeObjectURL(url), () => {});
  images = new Map();
  for (const id of ['single-img', 'compare-prev', 'compare-cur']) $(id).removeAttribute('src');
}

/** The image of a capture (`image`) or its diff (`diff`), fetched with the key, as a blob: URL. */
function imageUrl(captureId, which) {
  const cacheKey = `${captureId}/${which}`;
  if (!images.has(cacheKey)) {
    images.set(cacheKey, (async () => {
      const res = await call('GET', `/api/captures/${encodeURIComponent(captureId)}/${which}`);
      return URL.createObjectURL(await res.blob());
    })());
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
    c.width ? ['Size', `${c.width} × ${c.height} px${c.truncated ? ' (cut at the height limit)' : ''}`] : null,
    c.baselineId && c.status !== 'failed' ? ['Pixels changed', `${c.diffPixels.toLocaleString()} (${percent(c.diffRatio)})${c.confirmed ? ', confirmed by a second capture' : ''}`] : null,
  ].filter(Boolean);
  $('viewer-meta').replaceChildren(...facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
  const regions = c.regions ?? [];
  $('regions').replaceChildren(...regions.map((r) => h('li', {}, `x ${r.x}, y ${r.y}, ${r.width} × ${r.height} px`)));
  $('regions-none').hidden = regions.length > 0;
  $('regions-none').textContent = c.status === 'failed' ? 'None: the capture failed.' : c.baselineId ? 'None.' : 'None: this capture is a baseline.';
  const available = viewsOf(c);
  for (const button of document.querySelectorAll('#viewer button[data-view]')) {
    const ok = available.has(button.dataset.view);
    button.disabled = !ok;
    button.title = ok ? '' : whyNot(c, button.dataset.view);
  }
  if (!available.has(hist.view)) hist.view = available.has('current') ? 'current' : [...available][0] ?? 'current';
  showView(hist.view);
}

function viewsOf(c) {
  const views = new Set();
  if (c.status === 'failed' || !c.imageUrl) return views;
  views.add('current');
  if (c.baselineId) { views.add('previous'); views.add('slider'); }
  if (c.diffUrl) views.add('diff');
  return views;
}

function whyNot(c, view) {
  if (c.status === 'failed') return 'The capture failed: there is no image.';
  if (view === 'diff') return c.baselineId ? 'Nothing differed from the previous capture: there is no diff image.' : 'A baseline has nothing to compare with.';
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
  for (const button of document.querySelectorAll('#viewer button[data-view]')) {
    button.setAttribute('aria-pressed', String(button.dataset.view === view));
  }
  const available = viewsOf(c);
  $('view-note').textContent = available.size ? VIEW_NOTES[view] : '';
  $('view-toolbar').hidden = !available.size;
  const slider = view === 'slider';
  $('single').hidden = slider || !available.size;
  $('compare').hidden = !slider;
  const status = $('stage-status');
  if (!available.size) {
    status.replaceChildren(h('div', { class: 'alert error' }, `This capture failed, so it has no image. ${c.error ? `${c.error.code}: ${c.error.message}` : ''}`));
    return;
  }
  const generation = imageGeneration;
  status.replaceChildren(h('span', { class: 'loading' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Loading image…'));
  const when = absoluteTime(c.takenAt);
  try {
    if (slider) {
      const [prev, cur] = await Promise.all([imageUrl(c.baselineId, 'image'), imageUrl(c.id, 'image')]);
      if (generation !== imageGeneration || hist.view !== view) return;
      await Promise.all([setImage($('compare-prev'), prev, 'The previous capture (baseline)'), setImage($('compare-cur'), cur, `The capture of ${when}`)]);
      sizeCompare();
      applySlider();
    } else {
      const src = view === 'previous' ? await imageUrl(c.baselineId, 'image') : await imageUrl(c.id, view === 'diff' ? 'diff' : 'image');
      if (generation !== imageGeneration || hist.view !== view) return;
      const label = { previous: 'The previous capture (baseline)', current: `The capture of ${when}`, diff: `Differences between the capture of ${when} and the previous one` }[view];
      await setImage($('single-img'), src, label);
      $('single-caption').textContent = `${{ previous: 'Previous', current: 'Current', diff: 'Diff' }[view]} · ${$('single-img').naturalWidth} × ${$('single-img').naturalHeight} px`;
    }
    status.replaceChildren();
  } catch (err) {
    if (generation !== imageGeneration) return;
    if (err instanceof ApiError && err.status === 401) return handleError(err);
    status.replaceChildren(h('div', { class: 'alert error' }, `The image could not be loaded. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`));
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

// --------------------------------------------------------------------------------------------- start

fillTimezones();
renderKeyState();
if (state.key) {
  showSignedIn();
} else {
  setAlert($('key-error'), 'warn', 'Paste an API key to see and manage your monitors.');
}
