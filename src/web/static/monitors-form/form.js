// The create / edit form: its fields from a monitor, the request body from them (merge-patch nulls on
// edit), and each problem the API names shown next to its field, the first one focused.
import { useEffect, useLayoutEffect, useMemo, useRef } from '/assets/vendor/preact-hooks.js';
import { useSignal } from '/assets/vendor/signals.js';
import { ApiError } from '/assets/api.js';
import { fieldSentence, labelOf } from '/assets/field-sentence.js';
import { html } from '/assets/monitors-app/html.js';
import { Alert } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { describeSchedule } from '/assets/monitors-form/cron.js';
import { bind as bindTo, bindCheck, createFormModel, FieldError } from '/assets/monitors-form/model.js';
import {
  listFieldOf,
  listProblems,
  listRows,
  PatternList,
  readLists,
  ruleGroupOf,
  RuleList,
  StepList,
} from '/assets/monitors-form/lists.js';
import { filterFieldOf, FilterList, filterProblems, filterRows, readFilters } from '/assets/monitors-form/filters.js';
import { PickButton, PickerPanel, usePickSource } from '/assets/monitors-form/picker.js';
import { regionFieldOf, regionProblems, regionRows, RegionsEditor } from '/assets/monitors-form/regions.js';
import { ADVANCED_FIELDS, advancedValues, readAdvanced, rowsFor, summarize } from '/assets/monitors-form/advanced.js';
import { CHANNEL_FIELDS, ChannelPicker, channelValues, readChannels } from '/assets/monitors-form/channels.js';

/** Where each field of the API shows its error: API path → [input id, error element id]. */
const FIELDS = {
  name: ['f-name', 'f-name-error'],
  tags: ['f-tags', 'f-tags-error'],
  url: ['f-url', 'f-url-error'],
  schedule: ['f-schedule', 'f-schedule-error'],
  timezone: ['f-timezone', 'f-timezone-error'],
  'capture.fullPage': ['f-fullpage', 'f-fullpage-error'],
  'capture.saveLogin': ['f-savelogin', 'f-savelogin-error'],
  'capture.loggedInWhen': ['f-loggedin', 'f-loggedin-error'],
  'capture.viewport.width': ['f-vw', 'f-vw-error'],
  'capture.viewport.height': ['f-vh', 'f-vh-error'],
  'capture.viewport': ['f-vw', 'f-vw-error'],
  'diff.ignoreSelectors': ['f-ignore', 'f-ignore-error'],
  'diff.threshold': ['f-threshold', 'f-threshold-error'],
  'diff.minChangeRatio': ['f-minratio', 'f-minratio-error'],
  'diff.confirm': ['f-confirm', 'f-confirm-error'],
  'diff.mode': ['f-mode', 'f-mode-error'],
  'diff.textSelector': ['f-textselector', 'f-textselector-error'],
  'diff.filterMissingAfter': ['f-filtermissing', 'f-filtermissing-error'],
  'diff.priceSelector': ['f-priceselector', 'f-priceselector-error'],
  'diff.availabilitySelector': ['f-availselector', 'f-availselector-error'],
  notify: ['f-notify-change', 'f-notify-error'],
  webhookUrl: ['f-webhook', 'f-webhook-error'],
  'retention.keep': ['f-keep', 'f-keep-error'],
  retention: ['f-keep', 'f-keep-error'],
  ...ADVANCED_FIELDS,
  ...CHANNEL_FIELDS,
};
/** The error line of a control whose line is not `${id}-error` (a clip's four numbers share one). */
const ERROR_OF = Object.fromEntries(Object.values(FIELDS).map(([input, error]) => [input, error]));
const NOTIFY = ['change', 'failure', 'capture'];
const TEXTAREA_ROWS = ['f-a-hide', 'f-a-css', 'f-a-js', 'f-a-headers', 'f-a-cookies'];

function timezones() {
  try {
    return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  } catch {
    return ['UTC'];
  }
}

function localZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** The form's fields from a monitor (null: a new one). */
function initialValues(m) {
  return {
    'f-name': m && m.name !== m.url ? m.name : '',
    'f-tags': (m?.tags ?? []).join(', '),
    'f-url': m?.url ?? '',
    'f-schedule': m?.schedule ?? '',
    'f-timezone': m ? m.timezone : localZone(),
    'f-fullpage': Boolean(m?.capture?.fullPage),
    'f-savelogin': Boolean(m?.capture?.saveLogin),
    'f-loggedin-kind': m?.capture?.loggedInWhen?.selector !== undefined ? 'selector' : 'text',
    'f-loggedin': m?.capture?.loggedInWhen?.selector ?? m?.capture?.loggedInWhen?.text ?? '',
    'f-vw': String(m?.capture?.viewport?.width ?? ''),
    'f-vh': String(m?.capture?.viewport?.height ?? ''),
    'f-ignore': (m?.diff?.ignoreSelectors ?? []).join('\n'),
    'f-threshold': String(m?.diff?.threshold ?? ''),
    'f-minratio': String(m?.diff?.minChangeRatio ?? ''),
    'f-confirm': m?.diff?.confirm ?? true,
    'f-mode': m?.diff?.mode ?? 'visual',
    'f-textselector': m?.diff?.textSelector ?? '',
    'f-filtermissing': String(m?.diff?.filterMissingAfter ?? ''),
    'f-priceselector': m?.diff?.priceSelector ?? '',
    'f-availselector': m?.diff?.availabilitySelector ?? '',
    'f-rules-when': ruleGroupOf(m?.notifyWhen).when,
    'f-rules-locked': ruleGroupOf(m?.notifyWhen).locked,
    ...Object.fromEntries(
      NOTIFY.map((event) => [`f-notify-${event}`, m ? (m.notify ?? []).includes(event) : event !== 'capture']),
    ),
    'f-webhook': m?.webhookUrl ?? '',
    'f-keep': String(m?.retention?.keep ?? ''),
    ...advancedValues(m),
    ...channelValues(m),
  };
}

/** A number field: its number, '' for empty, or the text as typed (so the API names what is wrong). */
function numberOf(raw) {
  const text = String(raw).trim();
  if (text === '') return '';
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
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

/**
 * The body from the form: only the form's fields. On create, empty optional fields are left out (the
 * service's defaults apply); on edit they are sent as null (JSON Merge Patch: removed, so the default applies).
 */
function formBody(model, editing, original, channelList) {
  const empty = editing ? null : undefined;
  const text = (id) => model.text(id);
  const num = (id) => {
    const value = numberOf(model.get(id));
    return value === '' ? empty : value;
  };
  // The lists are sent whole (a Merge Patch replaces an array): an emptied list is [].
  const lists = readLists(model);
  const advanced = readAdvanced(model, empty, original);
  // The events in the order the monitor had them (then any new one): an unchanged form sends them unchanged.
  const had = original?.notify ?? [];
  const notify = NOTIFY.filter((event) => model.get(`f-notify-${event}`)).sort(
    (a, b) => (had.indexOf(a) + 1 || 99) - (had.indexOf(b) + 1 || 99),
  );
  const body = {
    name: text('f-name') || empty,
    // Comma-separated in the form; the list is sent whole (a PATCH replaces it), empty pieces dropped.
    tags: text('f-tags')
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean),
    url: text('f-url'),
    schedule: text('f-schedule').replace(/\s+/g, ' '),
    timezone: text('f-timezone') || 'UTC',
    capture: {
      ...advanced.capture,
      fullPage: Boolean(model.get('f-fullpage')),
      steps: lists.steps,
      saveLogin: Boolean(model.get('f-savelogin')),
      loggedInWhen: loggedInWhenOf(model, empty),
    },
    diff: {
      ignoreSelectors: model.lines('f-ignore'),
      threshold: num('f-threshold'),
      minChangeRatio: num('f-minratio'),
      confirm: Boolean(model.get('f-confirm')),
      mode: model.get('f-mode'),
      textSelector: text('f-textselector') || empty,
      ignoreText: lists.ignoreText,
      filters: readFilters(model),
      filterMissingAfter: num('f-filtermissing'),
      priceSelector: text('f-priceselector') || empty,
      availabilitySelector: text('f-availselector') || empty,
      ...advanced.diff,
    },
    notifyWhen: lists.notifyWhen,
    notify,
    webhookUrl: text('f-webhook') || empty,
    channels: readChannels(model, original, channelList).value,
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

/**
 * capture.loggedInWhen from its two controls: {text} or {selector}. On edit the other member is sent as
 * null, since a Merge Patch would otherwise keep it beside the new one; empty removes the probe.
 */
function loggedInWhenOf(model, empty) {
  const value = model.text('f-loggedin');
  if (!value) return empty;
  const kind = model.get('f-loggedin-kind') === 'selector' ? 'selector' : 'text';
  const other = kind === 'selector' ? 'text' : 'selector';
  return { [kind]: value, ...(empty === null && { [other]: null }) };
}

/**
 * The field of an API path: a row of a list (`notifyWhen.1.numberBelow` → rule 2's value), else the
 * longest known prefix ("diff.ignoreSelectors.2" → diff.ignoreSelectors).
 */
function fieldOf(model, path) {
  const listField =
    listFieldOf(model, String(path ?? '')) ??
    regionFieldOf(model, String(path ?? '')) ??
    filterFieldOf(model, String(path ?? ''));
  if (listField) return listField;
  const parts = String(path ?? '').split('.');
  while (parts.length) {
    const field = FIELDS[parts.join('.')];
    if (field) return field;
    parts.pop();
  }
  return null;
}

/** Inputs, selects and textareas can be invalid; a list's Add button only carries its list's error. */
const canBeInvalid = (el) => ['INPUT', 'SELECT', 'TEXTAREA'].includes(el?.tagName);

/** Shows each problem next to its field (aria-invalid, .field-error) and focuses the first one. */
function showFieldErrors(model, formEl, problems, summary) {
  const errors = {};
  const invalid = new Set();
  const named = new Set();
  const unplaced = [];
  for (const { path, message } of problems) {
    const field = fieldOf(model, path);
    if (!field) {
      unplaced.push(path ? `${path}: ${message}` : message);
      continue;
    }
    const [inputId, errorId] = field;
    const input = formEl.querySelector(`#${CSS.escape(inputId)}`);
    const words = fieldSentence(path, message, labelOf(input)); // the API's sentence, under the form's name
    errors[errorId] = errors[errorId] ? `${errors[errorId]} ${words}` : words;
    if (canBeInvalid(input)) invalid.add(inputId);
    if (inputId === 'f-notify-change') for (const event of NOTIFY) invalid.add(`f-notify-${event}`);
    named.add(inputId);
  }
  const count = problems.length;
  model.errors.value = errors;
  model.invalid.value = invalid;
  model.summaryError.value = {
    kind: 'error',
    message: summary ?? `The monitor was not saved: ${count} field${count === 1 ? ' needs' : 's need'} fixing.`,
    extra: unplaced.length
      ? html`<ul>
          ${unplaced.map((text) => html`<li>${text}</li>`)}
        </ul>`
      : null,
  };
  // The first problem in the form's order takes the focus.
  const first = [...named]
    .map((id) => formEl.querySelector(`#${CSS.escape(id)}`))
    .filter(Boolean)
    .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))[0];
  model.focus.value = first ? `#${CSS.escape(first.id)}` : '#form-error';
}

export function MonitorForm({ open }) {
  const store = useStore();
  const model = useMemo(() => {
    const m = open.monitor;
    const made = createFormModel({
      values: initialValues(m),
      lists: { ...listRows(m), regions: regionRows(m), filters: filterRows(m) },
    });
    made.errorOf = ERROR_OF;
    return made;
  }, []);
  usePickSource(model, open.id);
  const form = useRef(null);
  const section = useRef(null);
  const title = useRef(null);
  const saving = useSignal(false);
  const set = summarize(model);
  /** The key's channels, once loaded from a service that has them: only then is `channels` sent. */
  const channelsAvailable = () => (store.channels.missing.value ? null : store.channels.list.value);
  const advancedOpen = useSignal(set.length > 0);
  const initialRows = useMemo(() => Object.fromEntries(TEXTAREA_ROWS.map((id) => [id, rowsFor(model.get(id))])), []);

  const bind = (id, describedBy) => {
    const props = bindTo(model, id, describedBy);
    return TEXTAREA_ROWS.includes(id) ? { ...props, rows: initialRows[id] } : props;
  };
  const check = (id) => bindCheck(model, id);

  useEffect(() => {
    section.current.scrollIntoView({ block: 'start' });
    title.current.focus();
  }, []);

  // The control a problem or a list names takes the focus once drawn (a closed <details> opened first).
  // Right after the redraw that shows it (a layout effect), so the focus never lags the problems shown.
  const focusSelector = model.focus.value;
  useLayoutEffect(() => {
    if (!focusSelector) return;
    model.focus.value = null;
    const target = form.current?.querySelector(focusSelector) ?? document.querySelector(focusSelector);
    const details = target?.closest('details');
    if (details && !details.open) {
      details.open = true;
      advancedOpen.value = true;
    }
    if (target?.id === 'form-error') target.scrollIntoView({ block: 'nearest' });
    else target?.focus();
  });

  const scheduleText = model.get('f-schedule');
  const described = scheduleText.trim() ? describeSchedule(scheduleText, model.text('f-timezone') || 'UTC') : null;
  const schedule = described
    ? { words: described.ok ? `Runs: ${described.words}.` : described.problem, invalid: !described.ok }
    : { words: '', invalid: false };

  const pickExample = (event) => {
    const example = event.target.closest('button[data-cron]');
    if (!example) return;
    model.set('f-schedule', example.dataset.cron);
    model.focus.value = '#f-schedule';
  };

  /** What the browser can tell before asking: required fields. The service checks everything else. */
  function localProblems() {
    const problems = [];
    if (!model.text('f-url'))
      problems.push({ path: 'url', message: 'Enter the address of the page to watch (http or https).' });
    if (!model.text('f-schedule'))
      problems.push({ path: 'schedule', message: 'Enter a cron schedule, e.g. "*/15 * * * *".' });
    // Text in a number field that the browser could not read as a number reaches the script as "".
    for (const [path, [inputId]] of Object.entries(FIELDS)) {
      const input = form.current.querySelector(`#${CSS.escape(inputId)}`);
      if (
        input?.type === 'number' &&
        input.validity.badInput &&
        !problems.some((p) => fieldOf(model, p.path)?.[0] === inputId)
      )
        problems.push({ path, message: 'Enter a number.' });
    }
    const advanced = readAdvanced(model, undefined, open.monitor).problems;
    const channels = readChannels(model, open.monitor, channelsAvailable()).problems;
    return [
      ...problems,
      ...listProblems(model),
      ...filterProblems(model),
      ...regionProblems(model),
      ...advanced,
      ...channels,
    ];
  }

  async function submit(event) {
    event.preventDefault();
    model.clearErrors();
    const problems = localProblems();
    if (problems.length) return showFieldErrors(model, form.current, problems);
    saving.value = true;
    try {
      await store.saveMonitor(open.id, formBody(model, open.id !== null, open.monitor, channelsAvailable()));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_request' && err.details?.length) {
        showFieldErrors(model, form.current, err.details);
      } else if (err instanceof ApiError && err.code === 'url_blocked') {
        showFieldErrors(
          model,
          form.current,
          [{ path: 'url', message: err.explanation }],
          'The monitor was not saved: the service may not fetch this URL.',
        );
      } else if (err instanceof ApiError && err.status === 401) {
        store.handleError(err);
      } else {
        model.summaryError.value = {
          kind: 'error',
          message: `The monitor was not saved. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`,
        };
        model.focus.value = '#form-error';
      }
    } finally {
      saving.value = false;
    }
  }

  return html`<section id="form-section" class="card form-card" aria-labelledby="form-title" ref=${section}>
    <h2 id="form-title" tabindex="-1" ref=${title}>
      ${open.id === null ? 'New monitor' : `Edit “${open.monitor.name}”`}
    </h2>
    <form id="monitor-form" novalidate ref=${form} onSubmit=${submit} onClick=${pickExample}>
      <div id="form-error" role="alert"><${Alert} alert=${model.summaryError.value} /></div>
      <div class="grid two">
        <div>
          <label for="f-name">Name <span class="hint">optional; defaults to the URL</span></label>
          <input type="text" name="name" maxlength="200" autocomplete="off" ...${bind('f-name')} />
          <${FieldError} model=${model} id="f-name-error" />
          <label for="f-tags">Tags <span class="hint">optional; separate them with commas</span></label>
          <input
            type="text"
            name="tags"
            autocomplete="off"
            spellcheck="false"
            placeholder="e.g. shop, prices/EU"
            ...${bind('f-tags', 'f-tags-help')}
          />
          <p class="hint" id="f-tags-help">Up to 20, each 1–40 letters, digits, spaces or - _ . : /</p>
          <${FieldError} model=${model} id="f-tags-error" />

          <label for="f-url">Page URL</label>
          <input
            type="url"
            name="url"
            required
            placeholder="e.g. https://example.com/pricing"
            autocomplete="url"
            spellcheck="false"
            ...${bind('f-url')}
          />
          <${FieldError} model=${model} id="f-url-error" />

          <label for="f-schedule"
            >Schedule <span class="hint">cron: minute hour day-of-month month day-of-week</span></label
          >
          <input
            type="text"
            name="schedule"
            required
            spellcheck="false"
            autocomplete="off"
            class="mono"
            placeholder="e.g. */15 * * * *"
            ...${bind('f-schedule', 'f-schedule-words f-schedule-hint')}
          />
          <p class=${`schedule-words${schedule.invalid ? ' invalid' : ''}`} id="f-schedule-words" aria-live="polite">
            ${schedule.words}
          </p>
          <${FieldError} model=${model} id="f-schedule-error" />
          <div class="hint cron-hint" id="f-schedule-hint">
            Five fields, or six with seconds first. Examples:
            <ul class="cron-examples">
              <li>
                <button type="button" class="linkish" data-cron="*/15 * * * *"><code>*/15 * * * *</code></button>
                every 15 minutes
              </li>
              <li>
                <button type="button" class="linkish" data-cron="0 * * * *"><code>0 * * * *</code></button> every hour
              </li>
              <li>
                <button type="button" class="linkish" data-cron="0 9 * * 1-5"><code>0 9 * * 1-5</code></button> 9:00 on
                weekdays
              </li>
              <li>
                <button type="button" class="linkish" data-cron="30 6 1 * *"><code>30 6 1 * *</code></button> 6:30 on
                the 1st of each month
              </li>
            </ul>
          </div>

          <label for="f-timezone">Time zone <span class="hint">IANA name the schedule runs in</span></label>
          <input
            type="text"
            name="timezone"
            list="timezones"
            spellcheck="false"
            autocomplete="off"
            placeholder="e.g. UTC"
            ...${bind('f-timezone')}
          />
          <datalist id="timezones">${timezones().map((z) => html`<option value=${z} />`)}</datalist>
          <${FieldError} model=${model} id="f-timezone-error" />
        </div>

        <div>
          <fieldset>
            <legend>Capture</legend>
            <label class="check"
              ><input type="checkbox" name="fullPage" ...${check('f-fullpage')} /> Full page (the whole scroll
              height)</label
            >
            <${FieldError} model=${model} id="f-fullpage-error" />
            <div class="row">
              <div>
                <label for="f-vw">Viewport width <span class="hint">px</span></label>
                <input
                  type="number"
                  name="viewportWidth"
                  min="1"
                  max="3840"
                  step="1"
                  placeholder="default: 1280"
                  inputmode="numeric"
                  ...${bind('f-vw')}
                />
                <${FieldError} model=${model} id="f-vw-error" />
              </div>
              <div>
                <label for="f-vh">Viewport height <span class="hint">px</span></label>
                <input
                  type="number"
                  name="viewportHeight"
                  min="1"
                  max="2160"
                  step="1"
                  placeholder="default: 800"
                  inputmode="numeric"
                  ...${bind('f-vh')}
                />
                <${FieldError} model=${model} id="f-vh-error" />
              </div>
            </div>
          </fieldset>

          <fieldset>
            <legend>Change detection</legend>
            <label for="f-ignore">Ignore selectors <span class="hint">one CSS selector per line</span></label>
            <textarea
              name="ignoreSelectors"
              rows="3"
              spellcheck="false"
              placeholder="e.g. .ad"
              ...${bind('f-ignore')}
            ></textarea>
            <${FieldError} model=${model} id="f-ignore-error" />
            <div class="row">
              <div>
                <label for="f-threshold">Colour threshold <span class="hint">0–1</span></label>
                <input
                  type="number"
                  name="threshold"
                  min="0"
                  max="1"
                  step="0.01"
                  placeholder="default: 0.1"
                  inputmode="decimal"
                  ...${bind('f-threshold')}
                />
                <${FieldError} model=${model} id="f-threshold-error" />
              </div>
              <div>
                <label for="f-minratio">Min change ratio <span class="hint">0 = off</span></label>
                <input
                  type="number"
                  name="minChangeRatio"
                  min="0"
                  max="1"
                  step="0.0001"
                  placeholder="default: 0 (off)"
                  inputmode="decimal"
                  ...${bind('f-minratio')}
                />
                <${FieldError} model=${model} id="f-minratio-error" />
              </div>
            </div>
            <label class="check"
              ><input type="checkbox" name="confirm" ...${check('f-confirm')} /> Confirm a change with a second capture
              before reporting it</label
            >
            <${FieldError} model=${model} id="f-confirm-error" />

            <label for="f-mode">What counts as a change</label>
            <select name="mode" ...${bind('f-mode', 'f-mode-hint')}>
              <option value="visual">Pixels (the text changes explain them)</option>
              <option value="text">Text only (pixel noise is ignored)</option>
              <option value="both">Pixels or text</option>
            </select>
            <p class="hint field-hint" id="f-mode-hint">The default is pixels.</p>
            <${FieldError} model=${model} id="f-mode-error" />

            <label for="f-textselector"
              >Compare the text of <span class="hint">optional CSS selector; default: the whole page</span></label
            >
            <input
              type="text"
              name="textSelector"
              maxlength="1000"
              spellcheck="false"
              autocomplete="off"
              class="mono"
              placeholder="e.g. main article"
              ...${bind('f-textselector')}
            />
            <${FieldError} model=${model} id="f-textselector-error" />

            <div class="list-group" id="f-ignoretext-group" role="group" aria-labelledby="f-ignoretext-title">
              <p class="group-title" id="f-ignoretext-title">
                Ignore text matching
                <span class="hint"
                  >regular expressions (RE2 syntax: no lookaround or backreferences), blanked before texts are compared
                  (at most 20)</span
                >
              </p>
              <${PatternList} model=${model} />
            </div>
          </fieldset>

          <fieldset id="f-notify-group">
            <legend>Notify the webhook of</legend>
            <div class="checks">
              <label class="check"
                ><input type="checkbox" name="notify" value="change" ...${check('f-notify-change')} /> Changes</label
              >
              <label class="check"
                ><input type="checkbox" name="notify" value="failure" ...${check('f-notify-failure')} /> Failures</label
              >
              <label class="check"
                ><input type="checkbox" name="notify" value="capture" ...${check('f-notify-capture')} /> Every
                capture</label
              >
            </div>
            <${FieldError} model=${model} id="f-notify-error" />
            <label for="f-webhook">Webhook URL <span class="hint">optional</span></label>
            <input
              type="url"
              name="webhookUrl"
              placeholder="e.g. https://hooks.example.com/pagewatch"
              spellcheck="false"
              ...${bind('f-webhook', 'f-webhook-help')}
            />
            <${FieldError} model=${model} id="f-webhook-error" />
            <div class="hint webhook-help" id="f-webhook-help">
              <p>
                Each event is a POST signed by the Standard Webhooks rules: the headers
                <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code>, an
                HMAC-SHA256 made with your API key's webhook secret (<code>whsec_…</code>).
              </p>
              <p>
                That secret is printed once, with the key, by <code>npx pagewatch keys create</code> on the server.
                <code>npx pagewatch keys rotate-secret ${'<key id>'}</code> prints a new one (ids are in
                <code>npx pagewatch keys list</code>); the old one keeps signing alongside it for a grace period.
              </p>
              <p>
                <a href="/docs#verifying">How to verify a delivery</a> · Try the URL with <em>Send test event</em> in
                the monitor's history.
              </p>
            </div>
          </fieldset>

          <${ChannelPicker} model=${model} />

          <label for="f-keep"
            >Captures to keep <span class="hint">older ones are deleted (the baseline is always kept)</span></label
          >
          <input
            type="number"
            name="keep"
            min="1"
            step="1"
            placeholder="default: 100"
            inputmode="numeric"
            ...${bind('f-keep')}
          />
          <${FieldError} model=${model} id="f-keep-error" />
        </div>
      </div>
      <fieldset class="wide" id="f-filters-group" aria-describedby="f-filters-hint">
        <legend>What is compared: filters</legend>
        <p class="hint" id="f-filters-hint">
          Applied in order to the page's text (or the PDF's, the JSON's): keep what a CSS selector, an XPath or a
          JSONPath selects (several: any of them), remove elements, extract what a regular expression matches, then tidy
          the lines. Use Up and Down to reorder them. No filters: the whole text is compared. At most 20.
        </p>
        <${FilterList} model=${model} />
        <label for="f-filtermissing"
          >Tell me after this many captures in a row lose the filter${' '}
          <span class="hint">1–100; a capture whose filter matches nothing is not a change</span></label
        >
        <input
          type="number"
          name="filterMissingAfter"
          min="1"
          max="100"
          step="1"
          inputmode="numeric"
          placeholder="default: 3"
          ...${bind('f-filtermissing')}
        />
        <${FieldError} model=${model} id="f-filtermissing-error" />
      </fieldset>
      <fieldset class="wide" id="f-product-group" aria-describedby="f-product-hint">
        <legend>Price and availability</legend>
        <p class="hint" id="f-product-hint">
          Read from the page's structured data (schema.org, OpenGraph) when it has some; otherwise from these elements.
        </p>
        <div class="row">
          <div>
            <label for="f-priceselector">Price element <span class="hint">optional CSS selector</span></label>
            <div class="with-pick">
              <input
                type="text"
                name="priceSelector"
                maxlength="1000"
                spellcheck="false"
                autocomplete="off"
                class="mono"
                placeholder="e.g. .product .price"
                ...${bind('f-priceselector')}
              />
              <${PickButton}
                model=${model}
                target="f-priceselector"
                name="the price element"
                apply=${(selector) => model.set('f-priceselector', selector)}
              />
            </div>
            <${FieldError} model=${model} id="f-priceselector-error" />
          </div>
          <div>
            <label for="f-availselector">Availability element <span class="hint">optional CSS selector</span></label>
            <div class="with-pick">
              <input
                type="text"
                name="availabilitySelector"
                maxlength="1000"
                spellcheck="false"
                autocomplete="off"
                class="mono"
                placeholder="e.g. .stock"
                ...${bind('f-availselector')}
              />
              <${PickButton}
                model=${model}
                target="f-availselector"
                name="the availability element"
                apply=${(selector) => model.set('f-availselector', selector)}
              />
            </div>
            <${FieldError} model=${model} id="f-availselector-error" />
          </div>
        </div>
      </fieldset>
      <${PickerPanel} model=${model} />
      <fieldset class="wide" id="f-rules-group" aria-describedby="f-rules-hint">
        <legend>Notify only when</legend>
        <p class="hint" id="f-rules-hint">
          Each rule reads one element (its first match), or the capture's price and availability. A change is notified
          only when the rules hold (all of them, or any one) and one of them became true; a rule marked “only while
          true” just has to hold. No rules: every change is notified. At most 20.
        </p>
        ${
          model.get('f-rules-locked')
            ? html`<p class="alert info" id="f-rules-locked">
                This monitor's rules are grouped in a way this form cannot show (groups inside groups). They are kept as
                they are when you save; edit them through the API (<code>notifyWhen</code>).
              </p>`
            : html`<label for="f-rules-when">Notify when</label>
                <select name="notifyWhen" class="rules-when" ...${bind('f-rules-when')}>
                  <option value="all">all of these rules hold</option>
                  <option value="any">any of these rules holds</option>
                </select>
                <${RuleList} model=${model} />`
        }
      </fieldset>
      <fieldset class="wide" id="f-steps-group" aria-describedby="f-steps-hint">
        <legend>Steps before the capture</legend>
        <p class="hint" id="f-steps-hint">
          Run in order after the page loads, such as logging in or closing a consent banner; they share the render's
          time limit. At most 20. A secret value is stored encrypted and never shown again: it reads “••••”, and leaving
          it so keeps it.
        </p>
        <${StepList} model=${model} />
        <label class="check"
          ><input type="checkbox" name="saveLogin" ...${check('f-savelogin')} /> Keep me logged in</label
        >
        <p class="hint" id="f-savelogin-hint">
          After the steps log in, the site's cookies and storage are kept (encrypted) and later captures start from
          them; the steps run again only when the page no longer shows you are signed in.
        </p>
        <${FieldError} model=${model} id="f-savelogin-error" />
        ${
          model.get('f-savelogin')
            ? html`<div class="row">
                <div>
                  <label for="f-loggedin-kind">Signed in when the page shows</label>
                  <select name="loggedInWhenKind" ...${bind('f-loggedin-kind')}>
                    <option value="text">this text</option>
                    <option value="selector">this element (CSS selector)</option>
                  </select>
                </div>
                <div>
                  <label for="f-loggedin">Sign of being signed in</label>
                  <input
                    type="text"
                    name="loggedInWhen"
                    spellcheck="false"
                    placeholder="e.g. Signed in as"
                    ...${bind('f-loggedin')}
                  />
                  <${FieldError} model=${model} id="f-loggedin-error" />
                </div>
              </div>`
            : null
        }
      </fieldset>
      <section class="advanced" aria-labelledby="f-advanced-title">
        <h3 id="f-advanced-title" class="advanced-title">Advanced capture and comparison options</h3>
        <p class="hint advanced-summary" id="f-advanced-summary" role="status">
          ${set.length ? html`<strong>Set (${set.length}): </strong>${set.join(', ')}.` : 'None set: the defaults apply.'}
        </p>
        <details
          id="f-advanced"
          open=${advancedOpen.value}
          onToggle=${(event) => (advancedOpen.value = event.currentTarget.open)}
        >
          <summary id="f-advanced-toggle">Show every option</summary>
          <div class="advanced-body">
            <${RegionsEditor} model=${model} monitorId=${open.id} />

            <fieldset>
              <legend>What is captured</legend>
              <label for="f-a-hide"
                >Hide elements <span class="hint">one CSS selector per line; set to visibility: hidden</span></label
              >
              <textarea rows="2" spellcheck="false" placeholder="e.g. .cookie-banner" ...${bind('f-a-hide')}></textarea>
              <${FieldError} model=${model} id="f-a-hide-error" />
              <label for="f-a-selector"
                >Only this element <span class="hint">CSS selector; not with full page or a clip</span></label
              >
              <input
                type="text"
                class="mono"
                spellcheck="false"
                autocomplete="off"
                placeholder="e.g. main"
                ...${bind('f-a-selector')}
              />
              <${FieldError} model=${model} id="f-a-selector-error" />
              <div class="group-title" id="f-a-clip-title">
                Clip <span class="hint">a region in CSS px; not with full page or an element</span>
              </div>
              <div class="row four" role="group" aria-labelledby="f-a-clip-title">
                <div>
                  <label for="f-a-clip-x">x</label
                  ><input type="number" min="0" step="any" inputmode="decimal" ...${bind('f-a-clip-x')} />
                </div>
                <div>
                  <label for="f-a-clip-y">y</label
                  ><input type="number" min="0" step="any" inputmode="decimal" ...${bind('f-a-clip-y')} />
                </div>
                <div>
                  <label for="f-a-clip-w">Width</label
                  ><input type="number" min="0" step="any" inputmode="decimal" ...${bind('f-a-clip-w')} />
                </div>
                <div>
                  <label for="f-a-clip-h">Height</label
                  ><input type="number" min="0" step="any" inputmode="decimal" ...${bind('f-a-clip-h')} />
                </div>
              </div>
              <${FieldError} model=${model} id="f-a-clip-error" />
              <label for="f-a-css">Extra CSS <span class="hint">added after load, before the capture</span></label>
              <textarea
                rows="2"
                spellcheck="false"
                class="mono"
                placeholder="e.g. .clock { display: none }"
                ...${bind('f-a-css')}
              ></textarea>
              <${FieldError} model=${model} id="f-a-css-error" />
              <label for="f-a-js">Extra script <span class="hint">run after load, before the capture</span></label>
              <textarea rows="2" spellcheck="false" class="mono" ...${bind('f-a-js')}></textarea>
              <${FieldError} model=${model} id="f-a-js-error" />
              <div class="row">
                <div>
                  <label for="f-a-animations">Animations</label>
                  <select ...${bind('f-a-animations')}>
                    <option value="disabled">Stopped (default)</option>
                    <option value="allow">Allowed</option>
                  </select>
                </div>
                <div>
                  <label for="f-a-caret">Text caret</label>
                  <select ...${bind('f-a-caret')}>
                    <option value="hide">Hidden (default)</option>
                    <option value="initial">Shown</option>
                  </select>
                </div>
              </div>
              <label class="check"><input type="checkbox" ...${check('f-a-omitbg')} /> Transparent background</label>
              <label class="check"
                ><input type="checkbox" ...${check('f-a-scroll')} /> Scroll to the bottom and back first (lazy
                loading)</label
              >
              <${FieldError} model=${model} id="f-a-checks-error" />
            </fieldset>

            <fieldset>
              <legend>When the page is ready</legend>
              <div class="row">
                <div>
                  <label for="f-a-waituntil">Page loaded at</label>
                  <select ...${bind('f-a-waituntil')}>
                    <option value="load">load (default)</option>
                    <option value="domcontentloaded">DOMContentLoaded</option>
                    <option value="networkidle">network idle</option>
                  </select>
                </div>
                <div>
                  <label for="f-a-delay">Then wait <span class="hint">ms, 0–10000</span></label>
                  <input
                    type="number"
                    min="0"
                    max="10000"
                    step="1"
                    inputmode="numeric"
                    placeholder="default: 0"
                    ...${bind('f-a-delay')}
                  />
                  <${FieldError} model=${model} id="f-a-delay-error" />
                </div>
              </div>
              <label for="f-a-waitsel"
                >Wait for an element <span class="hint">CSS selector, until it is visible</span></label
              >
              <input
                type="text"
                class="mono"
                spellcheck="false"
                autocomplete="off"
                placeholder="e.g. #prices"
                ...${bind('f-a-waitsel')}
              />
              <${FieldError} model=${model} id="f-a-waitsel-error" />
              <label for="f-a-waitfn"
                >Wait until this script is true <span class="hint">a JavaScript expression</span></label
              >
              <input
                type="text"
                class="mono"
                spellcheck="false"
                autocomplete="off"
                placeholder="e.g. window.ready === true"
                ...${bind('f-a-waitfn')}
              />
              <${FieldError} model=${model} id="f-a-waitfn-error" />
              <div class="row">
                <div>
                  <label for="f-a-timeout">Time limit <span class="hint">ms, the whole capture</span></label>
                  <input
                    type="number"
                    min="1000"
                    step="1"
                    inputmode="numeric"
                    placeholder="default: 30000"
                    ...${bind('f-a-timeout')}
                  />
                  <${FieldError} model=${model} id="f-a-timeout-error" />
                </div>
                <div>
                  <label for="f-a-failhttp">An HTTP error status (400 or more)</label>
                  <select ...${bind('f-a-failhttp')}>
                    <option value="">Fails the capture (default)</option>
                    <option value="true">Fails the capture (always)</option>
                    <option value="false">Is captured like any page</option>
                  </select>
                </div>
              </div>
            </fieldset>

            <fieldset>
              <legend>Browser</legend>
              <div class="row">
                <div>
                  <label for="f-a-device">Device <span class="hint">a Playwright device name</span></label>
                  <input
                    type="text"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder="e.g. iPhone 13"
                    ...${bind('f-a-device')}
                  />
                  <${FieldError} model=${model} id="f-a-device-error" />
                </div>
                <div>
                  <label for="f-a-scale">Pixel ratio <span class="hint">1–3</span></label>
                  <input
                    type="number"
                    min="1"
                    max="3"
                    step="any"
                    inputmode="decimal"
                    placeholder="default: 1"
                    ...${bind('f-a-scale')}
                  />
                  <${FieldError} model=${model} id="f-a-scale-error" />
                </div>
              </div>
              <label for="f-a-ua">User agent</label>
              <input
                type="text"
                spellcheck="false"
                autocomplete="off"
                placeholder="default: Chromium's"
                ...${bind('f-a-ua')}
              />
              <${FieldError} model=${model} id="f-a-ua-error" />
              <div class="row">
                <div>
                  <label for="f-a-locale">Locale</label>
                  <input
                    type="text"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder="e.g. fr-FR"
                    ...${bind('f-a-locale')}
                  />
                  <${FieldError} model=${model} id="f-a-locale-error" />
                </div>
                <div>
                  <label for="f-a-tz">Page time zone</label>
                  <input
                    type="text"
                    list="timezones"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder="e.g. Europe/Paris"
                    ...${bind('f-a-tz')}
                  />
                  <${FieldError} model=${model} id="f-a-tz-error" />
                </div>
              </div>
              <div class="row">
                <div>
                  <label for="f-a-scheme">Colour scheme</label>
                  <select ...${bind('f-a-scheme')}>
                    <option value="light">Light (default)</option>
                    <option value="dark">Dark</option>
                  </select>
                </div>
                <div>
                  <label for="f-a-motion">Reduced motion</label>
                  <select ...${bind('f-a-motion')}>
                    <option value="reduce">Reduce (default)</option>
                    <option value="no-preference">No preference</option>
                  </select>
                </div>
              </div>
              <div class="row">
                <div>
                  <label for="f-a-media">CSS media</label>
                  <select ...${bind('f-a-media')}>
                    <option value="">Screen (default)</option>
                    <option value="screen">Screen (always)</option>
                    <option value="print">Print</option>
                  </select>
                </div>
                <div class="check-cell">
                  <label class="check"><input type="checkbox" ...${check('f-a-js-on')} /> JavaScript on</label>
                </div>
              </div>
              <div class="group-title" id="f-a-block-title">Do not load</div>
              <div class="checks" role="group" aria-labelledby="f-a-block-title" id="f-a-block">
                <label class="check"
                  ><input type="checkbox" name="block" value="image" ...${check('f-a-block-image')} /> Images</label
                >
                <label class="check"
                  ><input type="checkbox" name="block" value="media" ...${check('f-a-block-media')} /> Media</label
                >
                <label class="check"
                  ><input type="checkbox" name="block" value="font" ...${check('f-a-block-font')} /> Fonts</label
                >
                <label class="check"
                  ><input type="checkbox" name="block" value="stylesheet" ...${check('f-a-block-stylesheet')} />
                  Stylesheets</label
                >
                <label class="check"
                  ><input type="checkbox" name="block" value="script" ...${check('f-a-block-script')} /> Scripts</label
                >
                <label class="check"
                  ><input type="checkbox" name="block" value="xhr" ...${check('f-a-block-xhr')} /> XHR</label
                >
                <label class="check"
                  ><input type="checkbox" name="block" value="fetch" ...${check('f-a-block-fetch')} /> Fetch</label
                >
                <label class="check"
                  ><input type="checkbox" name="block" value="websocket" ...${check('f-a-block-websocket')} />
                  WebSockets</label
                >
              </div>
              <${FieldError} model=${model} id="f-a-block-error" />
            </fieldset>

            <fieldset>
              <legend>Requests</legend>
              <p class="hint">
                Header and cookie values and the password are stored encrypted and read “••••”; leaving “••••” keeps
                them.
              </p>
              <label for="f-a-headers">Extra headers <span class="hint">one “Name: value” per line</span></label>
              <textarea
                rows="2"
                spellcheck="false"
                class="mono"
                placeholder="e.g. Authorization: Bearer …"
                ...${bind('f-a-headers')}
              ></textarea>
              <${FieldError} model=${model} id="f-a-headers-error" />
              <label for="f-a-hscope">Send the headers to</label>
              <select ...${bind('f-a-hscope')}>
                <option value="origin">The page's origin only (default)</option>
                <option value="all">Every request the page makes</option>
              </select>
              <label for="f-a-cookies"
                >Cookies <span class="hint">a JSON array of {"name", "value", "domain"…}</span></label
              >
              <textarea
                rows="2"
                spellcheck="false"
                class="mono"
                placeholder='e.g. [{"name": "consent", "value": "yes"}]'
                ...${bind('f-a-cookies')}
              ></textarea>
              <${FieldError} model=${model} id="f-a-cookies-error" />
              <div class="row">
                <div>
                  <label for="f-a-user">Basic auth user</label>
                  <input type="text" spellcheck="false" autocomplete="off" ...${bind('f-a-user')} />
                </div>
                <div>
                  <label for="f-a-pass">Password</label>
                  <input type="password" autocomplete="new-password" ...${bind('f-a-pass')} />
                </div>
              </div>
              <${FieldError} model=${model} id="f-a-auth-error" />
              <div class="row">
                <div>
                  <label for="f-a-method">Request method</label>
                  <select ...${bind('f-a-method')}>
                    <option value="GET">GET (default)</option>
                    <option value="POST">POST</option>
                    <option value="PUT">PUT</option>
                  </select>
                  <${FieldError} model=${model} id="f-a-method-error" />
                </div>
                <div>
                  <label for="f-a-ctype">Body type <span class="hint">Content-Type</span></label>
                  <input
                    type="text"
                    spellcheck="false"
                    autocomplete="off"
                    class="mono"
                    placeholder="default: JSON or plain text"
                    ...${bind('f-a-ctype')}
                  />
                  <${FieldError} model=${model} id="f-a-ctype-error" />
                </div>
              </div>
              <label for="f-a-body"
                >Request body${' '}
                <span class="hint">POST and PUT; stored encrypted, it reads “••••” and leaving it keeps it</span></label
              >
              <textarea
                rows="2"
                spellcheck="false"
                class="mono"
                disabled=${(model.get('f-a-method') || 'GET') === 'GET'}
                placeholder=${(model.get('f-a-method') || 'GET') === 'GET' ? 'no body with GET' : 'e.g. {"query": "kettle"}'}
                ...${bind('f-a-body')}
              ></textarea>
              <${FieldError} model=${model} id="f-a-body-error" />
            </fieldset>

            <fieldset>
              <legend>Comparison</legend>
              <label class="check"
                ><input type="checkbox" ...${check('f-a-includeaa')} /> Strict: count anti-aliased and sub-pixel
                differences too</label
              >
              <${FieldError} model=${model} id="f-a-includeaa-error" />
            </fieldset>
          </div>
        </details>
      </section>
      <div class="form-actions">
        <button
          type="submit"
          class="primary"
          id="form-submit"
          disabled=${saving.value}
          aria-busy=${saving.value ? 'true' : undefined}
        >
          ${open.id === null ? 'Create monitor' : 'Save changes'}
        </button>
        <button type="button" id="form-cancel" onClick=${() => store.closeForm()}>Cancel</button>
      </div>
    </form>
  </section>`;
}
