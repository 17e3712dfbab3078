// The channel form: a channel's fields by type (email recipients; a chat or webhook URL; ntfy's topic URL
// and token; a JSON webhook's headers), its templates with the variables they can use listed beside them,
// its pace (digest, quiet hours) and whether it is a default. Write-only fields come back as "••••" and
// are kept unless replaced. Each problem the API names is shown at its field, the first one focused; a
// template's "line N" problem also puts the caret on that line.
import { useEffect, useLayoutEffect, useMemo, useRef } from '/assets/vendor/preact-hooks.js';
import { useSignal } from '/assets/vendor/signals.js';
import { ApiError } from '/assets/api.js';
import { fieldSentence, labelOf } from '/assets/field-sentence.js';
import { html } from '/assets/monitors-app/html.js';
import { Alert } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';
import { bind, bindCheck, createFormModel, FieldError } from '/assets/monitors-form/model.js';
import { TYPE_WORDS } from '/assets/monitors-channels/state.js';
import { TemplateVariables } from '/assets/monitors-channels/variables.js';

const MASK = '••••';
const URL_TYPES = ['slack', 'discord', 'teams', 'ntfy', 'webhook'];

/** Where each field of the API shows its problem: API path → the control's id (its error line: `${id}-error`). */
const FIELDS = {
  name: 'c-name',
  type: 'c-type',
  to: 'c-to',
  url: 'c-url',
  token: 'c-token',
  headers: 'c-headers',
  'templates.subject': 'c-subject',
  'templates.body': 'c-body',
  templates: 'c-body',
  digest: 'c-digest',
  digestAt: 'c-digestat',
  'quietHours.start': 'c-quiet-start',
  'quietHours.end': 'c-quiet-end',
  quietHours: 'c-quiet-start',
  default: 'c-default',
};

/** What each type calls the subject template; null: the type has none (a JSON webhook's body is all). */
const SUBJECT_WORDS = {
  email: ['Subject', 'the email’s subject line'],
  slack: ['Heading', 'the message’s first line, in bold'],
  discord: ['Heading', 'the embed’s title'],
  teams: ['Heading', 'the card’s title'],
  ntfy: ['Title', 'the notification’s title'],
  webhook: null,
};

const URL_WORDS = {
  slack: ['Incoming webhook URL', 'e.g. https://hooks.slack.com/services/…'],
  discord: ['Webhook URL', 'e.g. https://discord.com/api/webhooks/…'],
  teams: ['Incoming webhook URL', 'e.g. https://example.webhook.office.com/…'],
  ntfy: ['Topic URL', 'e.g. https://ntfy.sh/my-alerts'],
  webhook: ['URL', 'e.g. https://hooks.example.com/pagewatch'],
};

const headerLines = (headers) =>
  Object.entries(headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');

function initialValues(ch) {
  return {
    'c-name': ch?.name ?? '',
    'c-type': ch?.type ?? 'email',
    'c-to': (ch?.to ?? []).join('\n'),
    'c-url': ch?.url ?? '',
    'c-token': ch?.token ?? '',
    'c-headers': headerLines(ch?.headers),
    'c-subject': ch?.templates?.subject ?? '',
    'c-body': ch?.templates?.body ?? '',
    'c-digest': ch?.digest ?? 'off',
    'c-digestat': ch?.digestAt ?? '09:00',
    'c-quiet': Boolean(ch?.quietHours),
    'c-quiet-start': ch?.quietHours?.start ?? '22:00',
    'c-quiet-end': ch?.quietHours?.end ?? '07:00',
    'c-default': Boolean(ch?.default),
  };
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

/** "Name: value" lines as an object; a line without a colon is a problem the form names. */
function readHeaders(model) {
  const headers = {};
  const problems = [];
  model.lines('c-headers').forEach((line, i) => {
    const colon = line.indexOf(':');
    if (colon < 1) problems.push({ path: 'headers', message: `Line ${i + 1} needs the form “Name: value”.` });
    else headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return { headers, problems };
}

/**
 * The request body: on create, empty optional fields are left out; on edit they are sent as null (JSON
 * Merge Patch: removed). A write-only field still showing what the channel had ("••••") is left out: kept.
 */
function channelBody(model, original) {
  const editing = Boolean(original);
  /** An emptied field: left out on create; null on edit when the channel had it (else nothing to remove). */
  const cleared = (had) => (editing && had != null ? null : undefined);
  const type = model.get('c-type');
  const subjectShown = SUBJECT_WORDS[type] !== null;
  const subject = subjectShown ? model.get('c-subject').trim() : '';
  const text = model.get('c-body').trim() ? model.get('c-body') : '';
  const body = {
    name: model.text('c-name'),
    ...(!editing && { type }),
    templates: {
      subject: subject || cleared(original?.templates?.subject),
      body: text || cleared(original?.templates?.body),
    },
    digest: model.get('c-digest'),
    ...(model.get('c-digest') === 'daily' && { digestAt: model.text('c-digestat') }),
    quietHours: model.get('c-quiet')
      ? { start: model.text('c-quiet-start'), end: model.text('c-quiet-end') }
      : cleared(original?.quietHours),
    default: Boolean(model.get('c-default')),
  };
  if (type === 'email')
    body.to = model
      .text('c-to')
      .split(/[\s,;]+/)
      .filter(Boolean);
  if (URL_TYPES.includes(type)) {
    const url = model.text('c-url');
    if (!(editing && url === original.url)) body.url = url;
  }
  if (type === 'ntfy') {
    const token = model.text('c-token');
    if (!(editing && token === original.token)) body.token = token || cleared(original?.token);
  }
  if (type === 'webhook' && !(editing && model.get('c-headers') === headerLines(original.headers))) {
    const { headers } = readHeaders(model);
    body.headers = Object.keys(headers).length ? headers : cleared(original?.headers);
  }
  return prune(body);
}

/** The control of an API path: the longest known prefix ("to.2" → the recipients). */
function fieldOf(path) {
  const parts = String(path ?? '').split('.');
  while (parts.length) {
    const field = FIELDS[parts.join('.')];
    if (field) return field;
    parts.pop();
  }
  return null;
}

/** Shows each problem at its field (aria-invalid, its error line) and focuses the first one. */
function showFieldErrors(model, formEl, problems, summary) {
  const errors = {};
  const invalid = new Set();
  const unplaced = [];
  let first = null;
  for (const { path, message } of problems) {
    const id = fieldOf(path);
    const input = id && formEl.querySelector(`#${id}`);
    if (!input) {
      unplaced.push(path ? `${path}: ${message}` : message);
      continue;
    }
    const words = fieldSentence(path, message, labelOf(input));
    errors[`${id}-error`] = errors[`${id}-error`] ? `${errors[`${id}-error`]} ${words}` : words;
    invalid.add(id);
    if (!first || first.compareDocumentPosition(input) & Node.DOCUMENT_POSITION_PRECEDING) first = input;
  }
  const count = problems.length;
  model.errors.value = errors;
  model.invalid.value = invalid;
  model.summaryError.value = {
    kind: 'error',
    message: summary ?? `The channel was not saved: ${count} field${count === 1 ? ' needs' : 's need'} fixing.`,
    extra: unplaced.length
      ? html`<ul>
          ${unplaced.map((text) => html`<li>${text}</li>`)}
        </ul>`
      : null,
  };
  model.focus.value = first ? `#${first.id}` : '#channel-form-error';
}

/** A template's problem names its line ("line 3: …"): the caret goes to the start of that line. */
function caretToLine(textarea, message) {
  const line = Number(/\bline (\d+)/i.exec(message ?? '')?.[1]);
  if (!line || textarea?.tagName !== 'TEXTAREA') return;
  const lines = textarea.value.split('\n');
  const at = lines.slice(0, Math.min(line, lines.length) - 1).reduce((n, text) => n + text.length + 1, 0);
  textarea.setSelectionRange(at, at);
}

export function ChannelForm({ open }) {
  const store = useStore();
  const model = useMemo(() => createFormModel({ values: initialValues(open.channel), lists: {} }), []);
  const form = useRef(null);
  const section = useRef(null);
  const title = useRef(null);
  const saving = useSignal(false);
  const editing = open.id !== null;
  const type = model.get('c-type');
  const subject = SUBJECT_WORDS[type];
  const b = (id, describedBy) => bind(model, id, describedBy);

  useEffect(() => {
    section.current.scrollIntoView({ block: 'start' });
    title.current.focus();
  }, []);

  const focusSelector = model.focus.value;
  useLayoutEffect(() => {
    if (!focusSelector) return;
    model.focus.value = null;
    const target = form.current?.querySelector(focusSelector);
    if (target?.id === 'channel-form-error') return target.scrollIntoView({ block: 'nearest' });
    target?.focus();
    caretToLine(target, model.errors.value[`${target?.id}-error`]);
  });

  /** What the browser can tell before asking; the service checks everything else. */
  function localProblems() {
    const problems = [];
    if (!model.text('c-name')) problems.push({ path: 'name', message: 'Give the channel a name, e.g. “My inbox”.' });
    if (type === 'email' && !model.text('c-to'))
      problems.push({ path: 'to', message: 'Enter at least one email address.' });
    if (URL_TYPES.includes(type) && !model.text('c-url'))
      problems.push({ path: 'url', message: `Enter the ${URL_WORDS[type][0].toLowerCase()} (http or https).` });
    if (type === 'webhook') problems.push(...readHeaders(model).problems);
    return problems;
  }

  async function submit(event) {
    event.preventDefault();
    model.clearErrors();
    const problems = localProblems();
    if (problems.length) return showFieldErrors(model, form.current, problems);
    saving.value = true;
    try {
      await store.channels.save(open.id, channelBody(model, open.channel));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_request' && err.details?.length) {
        showFieldErrors(model, form.current, err.details);
      } else if (err instanceof ApiError && err.code === 'url_blocked') {
        showFieldErrors(
          model,
          form.current,
          [{ path: 'url', message: err.explanation }],
          'The channel was not saved: the service may not send to this URL.',
        );
      } else if (err instanceof ApiError && err.status === 401) {
        store.handleError(err);
      } else {
        model.summaryError.value = {
          kind: 'error',
          message: `The channel was not saved. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`,
        };
        model.focus.value = '#channel-form-error';
      }
    } finally {
      saving.value = false;
    }
  }

  return html`<section
    id="channel-form-section"
    class="card form-card"
    aria-labelledby="channel-form-title"
    ref=${section}
  >
    <h2 id="channel-form-title" tabindex="-1" ref=${title}>
      ${editing ? `Edit the channel “${open.channel.name}”` : 'New channel'}
    </h2>
    <form id="channel-form" novalidate ref=${form} onSubmit=${submit}>
      <div id="channel-form-error" role="alert"><${Alert} alert=${model.summaryError.value} /></div>
      <div class="grid two">
        <div>
          <label for="c-name">Name</label>
          <input type="text" maxlength="200" autocomplete="off" ...${b('c-name')} />
          <${FieldError} model=${model} id="c-name-error" />

          <label for="c-type">Type</label>
          <select ...${b('c-type', editing ? 'c-type-hint' : '')} disabled=${editing}>
            ${Object.entries(TYPE_WORDS).map(([value, words]) => html`<option value=${value}>${words}</option>`)}
          </select>
          ${editing ? html`<p class="hint field-hint" id="c-type-hint">A channel keeps its type: make a new one for another.</p>` : null}
          <${FieldError} model=${model} id="c-type-error" />

          ${
            type === 'email'
              ? html`<label for="c-to"
                    >Recipients <span class="hint">one address per line (or commas), at most 20</span></label
                  >
                  <textarea
                    rows="2"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder="e.g. me@example.com"
                    ...${b('c-to', 'c-to-hint')}
                  ></textarea>
                  <p class="hint field-hint" id="c-to-hint">
                    The service sends through the SMTP server its operator set (<code>PAGEWATCH_EMAIL_SMTP_HOST</code>);
                    without one, Send test says so.
                  </p>
                  <${FieldError} model=${model} id="c-to-error" />`
              : null
          }
          ${
            URL_TYPES.includes(type)
              ? html`<label for="c-url">${URL_WORDS[type][0]} <span class="hint">write-only</span></label>
                  <input
                    type="url"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder=${URL_WORDS[type][1]}
                    ...${b('c-url', 'c-secret-hint')}
                  />
                  <${FieldError} model=${model} id="c-url-error" />`
              : null
          }
          ${
            type === 'ntfy'
              ? html`<label for="c-token"
                    >Access token <span class="hint">optional, sent as a Bearer token</span></label
                  >
                  <input
                    type="password"
                    autocomplete="new-password"
                    spellcheck="false"
                    ...${b('c-token', 'c-secret-hint')}
                  />
                  <${FieldError} model=${model} id="c-token-error" />`
              : null
          }
          ${
            type === 'webhook'
              ? html`<label for="c-headers">Extra headers <span class="hint">one “Name: value” per line</span></label>
                  <textarea
                    rows="2"
                    spellcheck="false"
                    class="mono"
                    placeholder="e.g. Authorization: Bearer …"
                    ...${b('c-headers', 'c-secret-hint')}
                  ></textarea>
                  <${FieldError} model=${model} id="c-headers-error" />`
              : null
          }
          ${
            type !== 'email'
              ? html`<p class="hint field-hint" id="c-secret-hint">
                  The URL${type === 'ntfy' ? ', the token' : ''}${type === 'webhook' ? ' and header values' : ''} are
                  stored encrypted and read “${MASK}”; leaving “${MASK}” keeps them.
                </p>`
              : null
          }

          <fieldset>
            <legend>Pace</legend>
            <div class="row">
              <div>
                <label for="c-digest">Send</label>
                <select ...${b('c-digest', 'c-pace-hint')}>
                  <option value="off">Each alert at once</option>
                  <option value="hourly">An hourly digest</option>
                  <option value="daily">A daily digest</option>
                </select>
                <${FieldError} model=${model} id="c-digest-error" />
              </div>
              <div hidden=${model.get('c-digest') !== 'daily'}>
                <label for="c-digestat">At</label>
                <input type="time" ...${b('c-digestat')} />
                <${FieldError} model=${model} id="c-digestat-error" />
              </div>
            </div>
            <label class="check"
              ><input type="checkbox" ...${bindCheck(model, 'c-quiet')} /> Quiet hours: hold alerts until they
              end</label
            >
            <div class="row" hidden=${!model.get('c-quiet')}>
              <div>
                <label for="c-quiet-start">From</label>
                <input type="time" ...${b('c-quiet-start')} />
                <${FieldError} model=${model} id="c-quiet-start-error" />
              </div>
              <div>
                <label for="c-quiet-end">Until</label>
                <input type="time" ...${b('c-quiet-end')} />
                <${FieldError} model=${model} id="c-quiet-end-error" />
              </div>
            </div>
            <p class="hint field-hint" id="c-pace-hint">
              Times are in the time zone of the monitor whose alert it is. A digest sends the alerts gathered since the
              last one as one message; Send test always sends at once.
            </p>
          </fieldset>

          <label class="check"
            ><input type="checkbox" ...${bindCheck(model, 'c-default')} /> Default: alert here for every monitor of this
            key that picks no channels of its own</label
          >
          <${FieldError} model=${model} id="c-default-error" />
        </div>

        <div>
          <fieldset class="templates">
            <legend>
              Message${' '}
              <span class="hint"
                >optional Liquid templates; empty: the ${TYPE_WORDS[type]} message Pagewatch writes</span
              >
            </legend>
            ${
              subject
                ? html`<label for="c-subject">${subject[0]} <span class="hint">${subject[1]}</span></label>
                    <input
                      type="text"
                      spellcheck="false"
                      class="mono"
                      autocomplete="off"
                      placeholder="e.g. {{ monitor.name }} changed"
                      ...${b('c-subject', 'c-vars-title')}
                    />
                    <${FieldError} model=${model} id="c-subject-error" />`
                : null
            }
            <label for="c-body"
              >${type === 'webhook' ? 'JSON body' : 'Body'}${' '}
              <span class="hint"
                >${type === 'webhook' ? 'the whole request body, JSON once rendered' : type === 'email' ? 'the plain text; the crops are added below it' : 'the message text'}</span
              ></label
            >
            <textarea
              rows="6"
              spellcheck="false"
              class="mono"
              placeholder=${type === 'webhook' ? '{"text": "{{ monitor.name }}: {{ summary }}"}' : '{{ summary }}\n{{ links.capture }}'}
              ...${b('c-body', 'c-vars-title')}
            ></textarea>
            <${FieldError} model=${model} id="c-body-error" />
            <${TemplateVariables} />
          </fieldset>
        </div>
      </div>
      <div class="form-actions">
        <button
          type="submit"
          class="primary"
          id="channel-submit"
          disabled=${saving.value}
          aria-busy=${saving.value ? 'true' : undefined}
        >
          ${editing ? 'Save changes' : 'Create channel'}
        </button>
        <button type="button" id="channel-cancel" onClick=${() => store.channels.closeForm()}>Cancel</button>
      </div>
    </form>
  </section>`;
}
