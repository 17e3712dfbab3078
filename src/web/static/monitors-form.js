// The create / edit form: filling it from a monitor, the request body from it (merge-patch nulls on
// edit), and each problem the API names shown next to its field.
import { ApiError } from '/assets/api.js';
import { loadCaptures } from '/assets/monitors-history.js';
import { handleError } from '/assets/monitors-key.js';
import { loadList, renderList } from '/assets/monitors-list.js';
import { readAdvanced, setAdvanced } from '/assets/monitors-form-advanced.js';
import { clearFieldErrors, FIELDS, fieldOf, showFieldErrors } from '/assets/monitors-form-errors.js';
import { listProblems, readLists, setLists } from '/assets/monitors-form-lists.js';
import { regionProblems } from '/assets/monitors-form-regions.js';
import { showScheduleWords } from '/assets/monitors-form-schedule.js';
import { $, h, json, notice, relativeTime, setAlert, state } from '/assets/monitors-util.js';

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
  state.editingOriginal = null;
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
  setAdvanced(null);
  showScheduleWords();
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
  state.editingOriginal = m;
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
  setAdvanced(m);
  showScheduleWords();
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
function formBody(editing, original) {
  const empty = editing ? null : undefined;
  const text = (id) => $(id).value.trim();
  const num = (id) => {
    const value = numberOf($(id));
    return value === '' ? empty : value;
  };
  // The lists are sent whole (a Merge Patch replaces an array): an emptied list is [].
  const lists = readLists();
  const advanced = readAdvanced(empty, original);
  // The events in the order the monitor had them (then any new one): an unchanged form sends them unchanged.
  const had = original?.notify ?? [];
  const notify = [...document.querySelectorAll('#f-notify-group input[name="notify"]:checked')]
    .map((box) => box.value)
    .sort((a, b) => (had.indexOf(a) + 1 || 99) - (had.indexOf(b) + 1 || 99));
  const body = {
    name: text('f-name') || empty,
    url: text('f-url'),
    schedule: text('f-schedule').replace(/\s+/g, ' '),
    timezone: text('f-timezone') || 'UTC',
    capture: { ...advanced.capture, fullPage: $('f-fullpage').checked, steps: lists.steps },
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
      ...advanced.diff,
    },
    notifyWhen: lists.notifyWhen,
    notify,
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
  const advanced = readAdvanced(undefined, state.editingOriginal).problems;
  return [...problems, ...listProblems(), ...regionProblems(), ...advanced];
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
    const body = formBody(editing !== null, editing ? state.editingOriginal : null);
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
  showScheduleWords();
  $('f-schedule').focus();
});
