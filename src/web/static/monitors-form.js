// The create / edit form: filling it from a monitor, the request body from it (merge-patch nulls on
// edit), and each problem the API names shown next to its field.
import { ApiError } from '/assets/api.js';
import { fieldSentence, labelOf } from '/assets/field-sentence.js';
import { loadCaptures } from '/assets/monitors-history.js';
import { handleError } from '/assets/monitors-key.js';
import { loadList, renderList } from '/assets/monitors-list.js';
import { listFieldOf, listProblems, readLists, setLists } from '/assets/monitors-form-lists.js';
import { $, h, json, notice, relativeTime, setAlert, state } from '/assets/monitors-util.js';

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
  'diff.mode': ['f-mode', 'f-mode-error'],
  'diff.textSelector': ['f-textselector', 'f-textselector-error'],
  notify: ['f-notify-change', 'f-notify-error'],
  webhookUrl: ['f-webhook', 'f-webhook-error'],
  'retention.keep': ['f-keep', 'f-keep-error'],
  retention: ['f-keep', 'f-keep-error'],
};

/**
 * The field of an API path: a row of a list (`notifyWhen.1.numberBelow` → rule 2's value), else the
 * longest known prefix ("diff.ignoreSelectors.2" → diff.ignoreSelectors).
 */
function fieldOf(path) {
  const listField = listFieldOf(String(path ?? ''));
  if (listField) return listField;
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
  if (on) ids.add(errorId);
  else ids.delete(errorId);
  if (ids.size) input.setAttribute('aria-describedby', [...ids].join(' '));
  else input.removeAttribute('aria-describedby');
}

/** Inputs, selects and textareas can be invalid; a list's Add button only carries its list's error. */
const canBeInvalid = (el) => ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName);

function clearFieldErrors() {
  setAlert($('form-error'), 'error', '');
  const form = $('monitor-form');
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  for (const error of form.querySelectorAll('.field-error')) {
    for (const el of form.querySelectorAll(`[aria-describedby~="${CSS.escape(error.id)}"]`))
      describedBy(el, error.id, false);
    error.textContent = '';
    error.hidden = true;
  }
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
    const words = fieldSentence(path, message, labelOf(input)); // the API's sentence, under the form's name
    error.textContent = error.textContent ? `${error.textContent} ${words}` : words;
    error.hidden = false;
    if (canBeInvalid(input)) input.setAttribute('aria-invalid', 'true');
    if (inputId === 'f-notify-change')
      for (const box of document.querySelectorAll('#f-notify-group input[name="notify"]'))
        box.setAttribute('aria-invalid', 'true');
    describedBy(input, errorId, true);
    invalid.add(input);
  }
  const count = problems.length;
  setAlert(
    $('form-error'),
    'error',
    summary ?? `The monitor was not saved: ${count} field${count === 1 ? ' needs' : 's need'} fixing.`,
    unplaced.length
      ? h(
          'ul',
          {},
          unplaced.map((text) => h('li', {}, text)),
        )
      : null,
  );
  // The first problem in the form's order takes the focus.
  const first = [...invalid].sort((a, b) =>
    a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1,
  )[0];
  if (first) first.focus();
  else $('form-error').scrollIntoView({ block: 'nearest' });
}

export function fillTimezones() {
  let zones;
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  $('timezones').replaceChildren(...['UTC', ...zones.filter((z) => z !== 'UTC')].map((z) => h('option', { value: z })));
}

function openCreate() {
  state.editing = null;
  const form = $('monitor-form');
  form.reset();
  clearFieldErrors();
  let tz = 'UTC';
  try {
    tz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    /* keep UTC */
  }
  $('f-timezone').value = tz;
  setLists(null);
  $('form-title').textContent = 'New monitor';
  $('form-submit').textContent = 'Create monitor';
  showForm();
}

export async function openEdit(id) {
  let m = state.monitors.get(id);
  try {
    m = await json('GET', `/api/monitors/${encodeURIComponent(id)}`);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status === 401 || err.status === 404)
      return handleError(err, 'The monitor could not be opened');
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
  $('f-mode').value = m.diff?.mode ?? 'visual';
  $('f-textselector').value = m.diff?.textSelector ?? '';
  setLists(m);
  for (const box of document.querySelectorAll('#f-notify-group input[name="notify"]'))
    box.checked = (m.notify ?? []).includes(box.value);
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

export function closeForm(refocus = true) {
  $('form-section').hidden = true;
  clearFieldErrors();
  const editing = state.editing;
  state.editing = null;
  if (refocus) {
    const back =
      editing && $('monitor-rows').querySelector(`button[data-action="edit"][data-id="${CSS.escape(editing)}"]`);
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
  // The lists are sent whole (a Merge Patch replaces an array): an emptied list is [].
  const lists = readLists();
  const body = {
    name: text('f-name') || empty,
    url: text('f-url'),
    schedule: text('f-schedule').replace(/\s+/g, ' '),
    timezone: text('f-timezone') || 'UTC',
    capture: { fullPage: $('f-fullpage').checked, steps: lists.steps },
    diff: {
      ignoreSelectors: $('f-ignore')
        .value.split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
      threshold: num('f-threshold'),
      minChangeRatio: num('f-minratio'),
      confirm: $('f-confirm').checked,
      mode: $('f-mode').value,
      textSelector: text('f-textselector') || empty,
      ignoreText: lists.ignoreText,
    },
    notifyWhen: lists.notifyWhen,
    notify: [...document.querySelectorAll('#f-notify-group input[name="notify"]:checked')].map((box) => box.value),
    webhookUrl: text('f-webhook') || empty,
    retention: { keep: num('f-keep') },
  };
  const vw = num('f-vw');
  const vh = num('f-vh');
  if ((vw !== undefined && vw !== null) || (vh !== undefined && vh !== null)) {
    body.capture.viewport = {
      ...(vw !== null && vw !== undefined && { width: vw }),
      ...(vh !== null && vh !== undefined && { height: vh }),
    };
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
    if (pruned !== null && typeof pruned === 'object' && !Array.isArray(pruned) && Object.keys(pruned).length === 0)
      continue;
    out[k] = pruned;
  }
  return out;
}

/** What the browser can tell before asking: required fields. The service checks everything else. */
function localProblems() {
  const problems = [];
  if (!$('f-url').value.trim())
    problems.push({ path: 'url', message: 'Enter the address of the page to watch (http or https).' });
  if (!$('f-schedule').value.trim())
    problems.push({ path: 'schedule', message: 'Enter a cron schedule, e.g. "*/15 * * * *".' });
  // Text in a number field that the browser could not read as a number reaches the script as "".
  for (const [path, [inputId]] of Object.entries(FIELDS)) {
    const input = $(inputId);
    if (input.type === 'number' && input.validity.badInput && !problems.some((p) => fieldOf(p.path)?.[0] === inputId)) {
      problems.push({ path, message: 'Enter a number.' });
    }
  }
  return [...problems, ...listProblems()];
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
    await loadList();
    if (!state.monitors.has(saved.id)) {
      state.monitors.set(saved.id, saved);
      renderList();
    }
    notice(
      editing
        ? `“${saved.name}” was saved.`
        : `“${saved.name}” was created; ${saved.nextRunAt ? `first scheduled capture ${relativeTime(saved.nextRunAt)}` : 'it is paused'}. Use Run now to capture it at once.`,
    );
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
      showFieldErrors(
        [{ path: 'url', message: err.explanation }],
        'The monitor was not saved: the service may not fetch this URL.',
      );
    } else if (err instanceof ApiError && err.status === 401) {
      handleError(err);
    } else {
      clearFieldErrors();
      setAlert(
        $('form-error'),
        'error',
        `The monitor was not saved. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`,
      );
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
