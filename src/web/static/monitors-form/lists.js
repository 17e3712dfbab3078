// The form's lists a monitor can hold any number of (up to the API's limits): diff.ignoreText patterns,
// notifyWhen rules and capture.steps. Each row has its own labelled controls and its own error line, so
// an API problem such as `notifyWhen.1.numberBelow` is shown beside the value of rule 2.
import { html } from '/assets/monitors-app/html.js';
import { RULE_TESTS as TESTS, Words } from '/assets/monitors-app/format.js';
import { bindCheck, FieldError } from '/assets/monitors-form/model.js';

/** What a stored secret reads in an answer; sent back, it keeps the stored value (the API's rule). */
export const MASK = '••••';

/** The API's limit on each list; the Add button stops there (the API would refuse a 21st). */
const MAX_ITEMS = 20;

const VALUE_KIND = Object.fromEntries(TESTS.map(([test, , kind]) => [test, kind]));

/** capture.steps actions: which of selector / value each takes (as the API's schema), and what the value is. */
const ACTIONS = {
  click: { selector: true, value: null },
  fill: { selector: true, value: 'the text to type' },
  press: { selector: 'optional', value: 'a key, e.g. Enter' },
  select: { selector: true, value: 'the option value' },
  waitForSelector: { selector: true, value: null },
  waitForTimeout: { selector: false, value: 'milliseconds' },
  goto: { selector: false, value: 'an http(s) URL' },
};

/** The rows of each list from a monitor (null: a new one). */
export function listRows(m) {
  return {
    patterns: (m?.diff?.ignoreText ?? []).map((pattern) => ({ pattern })),
    rules: (m?.notifyWhen ?? []).map((rule) => {
      const found = TESTS.find(([t]) => rule[t] !== undefined);
      return {
        selector: rule.selector ?? '',
        test: found?.[0] ?? TESTS[0][0],
        value: found && found[2] !== null ? String(rule[found[0]]) : '',
      };
    }),
    steps: (m?.capture?.steps ?? []).map((step) => ({
      action: step.action,
      selector: step.selector ?? '',
      value: step.value ?? '',
      secret: step.secret === true,
      // The form has no field for a secret's origin (set through the API): kept as it was, so a save
      // with the secret's "••••" still stands for the stored value.
      origin: step.origin,
    })),
  };
}

/** A control with its label above and its error line below; the error line's id is `${id}-error`. */
function Cell({ model, label, id, grow, children }) {
  return html`<div class=${grow ? 'cell grow' : 'cell'}>
    <label for=${id}>${label}</label>
    ${children}
    <${FieldError} model=${model} id=${`${id}-error`} />
  </div>`;
}

const invalidProps = (model, id) => {
  const errorId = `${id}-error`;
  return {
    id,
    'aria-invalid': model.invalid.value.has(id) ? 'true' : undefined,
    'aria-describedby': model.errors.value[errorId] ? errorId : undefined,
  };
};

/**
 * One editable list: rows drawn by `Row`, numbered in their legends / labels and remove buttons, an Add
 * button that focuses the new row, and Remove that moves the focus to the next row (or Add).
 */
function EditList({ model, name, listId, listClass, addId, errorId, noun, addWords, blank, Row }) {
  const rows = model[name].value;
  const update = (i, patch) => {
    model[name].value = rows.map((row, j) => (j === i ? { ...row, ...patch } : row));
  };
  const add = () => {
    const row = { ...blank, n: model.nextSerial() };
    model[name].value = [...rows, row];
    model.focus.value = `#${listId} > li:last-child :is(input, select)`;
  };
  const remove = (i) => {
    const next = rows[i + 1] ?? rows[i - 1];
    model[name].value = rows.filter((_, j) => j !== i);
    model.focus.value = next ? `#${listId} > li[data-n="${next.n}"] :is(input, select)` : `#${addId}`;
  };
  return html`<ol class=${listClass} id=${listId}>
      ${rows.map(
        (row, i) =>
          html`<li class="list-row" key=${row.n} data-n=${row.n}>
            <${Row} model=${model} row=${row} i=${i} update=${(patch) => update(i, patch)}>
              <button type="button" class="small remove" data-remove=${noun} onClick=${() => remove(i)}>
                <${Words} visible="Remove" hidden=${`${noun} ${i + 1}`} />
              </button>
            <//>
          </li>`,
      )}
    </ol>
    <${FieldError} model=${model} id=${errorId} />
    <button type="button" class="small" id=${addId} disabled=${rows.length >= MAX_ITEMS} onClick=${add}>
      ${addWords}
    </button>`;
}

function PatternRow({ model, row, i, update, children }) {
  const id = `f-pattern-${row.n}`;
  return html`<div class="cells">
    <${Cell} model=${model} label=${`Pattern ${i + 1}`} id=${id} grow>
      <input
        type="text"
        class="mono pattern"
        spellcheck="false"
        autocomplete="off"
        placeholder="e.g. \\d{1,2}:\\d{2}"
        value=${row.pattern}
        onInput=${(event) => update({ pattern: event.currentTarget.value })}
        ...${invalidProps(model, id)}
      />
    <//>
    ${children}
  </div>`;
}

function RuleRow({ model, row, i, update, children }) {
  const kind = VALUE_KIND[row.test];
  const id = (part) => `f-rule-${row.n}-${part}`;
  return html`<fieldset>
    <legend>Rule ${i + 1}</legend>
    <div class="cells">
      <${Cell} model=${model} label="Element (CSS selector)" id=${id('selector')} grow>
        <input
          type="text"
          class="mono selector"
          maxlength="1000"
          spellcheck="false"
          autocomplete="off"
          placeholder="e.g. .price"
          value=${row.selector}
          onInput=${(event) => update({ selector: event.currentTarget.value })}
          ...${invalidProps(model, id('selector'))}
        />
      <//>
      <${Cell} model=${model} label="Test" id=${id('test')}>
        <select
          class="test"
          value=${row.test}
          onChange=${(event) => {
            const test = event.currentTarget.value;
            update(VALUE_KIND[test] === null ? { test, value: '' } : { test });
          }}
          ...${invalidProps(model, id('test'))}
        >
          ${TESTS.map(([t, words]) => html`<option value=${t}>${words}</option>`)}
        </select>
      <//>
      <${Cell} model=${model} label="Value" id=${id('value')}>
        <input
          type="text"
          class="value"
          maxlength="1000"
          spellcheck="false"
          autocomplete="off"
          disabled=${kind === null}
          inputmode=${kind === 'number' ? 'decimal' : 'text'}
          placeholder=${kind === 'number' ? 'e.g. 19.99' : kind === 'text' ? 'e.g. In stock' : 'no value'}
          value=${row.value}
          onInput=${(event) => update({ value: event.currentTarget.value })}
          ...${invalidProps(model, id('value'))}
        />
      <//>
      ${children}
    </div>
  </fieldset>`;
}

function StepRow({ model, row, i, update, children }) {
  const needs = ACTIONS[row.action] ?? ACTIONS.click;
  const id = (part) => `f-step-${row.n}-${part}`;
  // A "••••" means "the stored secret": once the value is no longer secret it must be typed again.
  const unsecret = (patch) => update({ ...patch, secret: false, value: row.value === MASK ? '' : row.value });
  const secretBox = bindCheck(
    { ...model, get: () => row.secret, set: (_, on) => (on ? update({ secret: true }) : unsecret({})) },
    id('secret'),
  );
  return html`<fieldset>
    <legend>Step ${i + 1}</legend>
    <div class="cells">
      <${Cell} model=${model} label="Action" id=${id('action')}>
        <select
          class="action"
          value=${row.action}
          onChange=${(event) => {
            const action = event.currentTarget.value;
            if (action !== 'fill' && row.secret) unsecret({ action });
            else update({ action });
          }}
          ...${invalidProps(model, id('action'))}
        >
          ${Object.keys(ACTIONS).map((a) => html`<option value=${a}>${a}</option>`)}
        </select>
      <//>
      <${Cell} model=${model} label="Element (selector)" id=${id('selector')} grow>
        <input
          type="text"
          class="mono selector"
          maxlength="1000"
          spellcheck="false"
          autocomplete="off"
          disabled=${needs.selector === false}
          placeholder=${
            needs.selector === false
              ? 'no selector'
              : needs.selector === 'optional'
                ? 'optional, e.g. #search'
                : 'e.g. #login button'
          }
          value=${row.selector}
          onInput=${(event) => update({ selector: event.currentTarget.value })}
          ...${invalidProps(model, id('selector'))}
        />
      <//>
      <${Cell} model=${model} label="Value" id=${id('value')} grow>
        <input
          type=${row.secret ? 'password' : 'text'}
          class="value"
          spellcheck="false"
          autocomplete="off"
          disabled=${needs.value === null}
          placeholder=${needs.value ?? 'no value'}
          value=${row.value}
          onInput=${(event) => update({ value: event.currentTarget.value })}
          ...${invalidProps(model, id('value'))}
        />
      <//>
      <div class="cell secret-cell">
        <label class="check"
          ><input type="checkbox" class="secret" disabled=${row.action !== 'fill'} ...${secretBox} /> Secret</label
        >
        <${FieldError} model=${model} id=${`${id('secret')}-error`} />
      </div>
      ${children}
    </div>
  </fieldset>`;
}

export const PatternList = ({ model }) =>
  html`<${EditList}
    model=${model}
    name="patterns"
    listId="f-ignoretext-list"
    listClass="edit-list patterns"
    addId="f-ignoretext-add"
    errorId="f-ignoretext-error"
    noun="pattern"
    addWords="Add pattern"
    blank=${{ pattern: '' }}
    Row=${PatternRow}
  />`;

export const RuleList = ({ model }) =>
  html`<${EditList}
    model=${model}
    name="rules"
    listId="f-rules-list"
    listClass="edit-list rules"
    addId="f-rules-add"
    errorId="f-rules-error"
    noun="rule"
    addWords="Add rule"
    blank=${{ selector: '', test: TESTS[0][0], value: '' }}
    Row=${RuleRow}
  />`;

export const StepList = ({ model }) =>
  html`<${EditList}
    model=${model}
    name="steps"
    listId="f-steps-list"
    listClass="edit-list steps"
    addId="f-steps-add"
    errorId="f-steps-error"
    noun="step"
    addWords="Add step"
    blank=${{ action: 'click', selector: '', value: '', secret: false }}
    Row=${StepRow}
  />`;

/** A rule's number as typed: a number (a decimal comma accepted), else the text so the API names the problem. */
function ruleNumber(raw) {
  const text = raw.trim();
  const n = Number(/^[-+]?\d+,\d+$/.test(text) ? text.replace(',', '.') : text);
  return Number.isFinite(n) ? n : text;
}

export function readLists(model) {
  const ignoreText = model.patterns.value.map((row) => row.pattern);
  const notifyWhen = model.rules.value.map((row) => {
    const kind = VALUE_KIND[row.test];
    return {
      selector: row.selector.trim(),
      [row.test]: kind === null ? true : kind === 'number' ? ruleNumber(row.value) : row.value,
    };
  });
  const steps = model.steps.value.map((row) => {
    const needs = ACTIONS[row.action];
    const step = { action: row.action };
    if (needs.selector !== false && row.selector.trim()) step.selector = row.selector.trim();
    // fill may type nothing (clear a field); the others need something, and the API says so when it is missing.
    if (needs.value !== null && (row.value !== '' || row.action === 'fill')) step.value = row.value;
    if (row.secret) step.secret = true;
    if (row.secret && row.origin) step.origin = row.origin;
    return step;
  });
  return { ignoreText, notifyWhen, steps };
}

/** Problems the browser can name before asking: empty patterns and rule values (the API's words would be vaguer). */
export function listProblems(model) {
  const problems = [];
  model.patterns.value.forEach((row, i) => {
    if (!row.pattern) problems.push({ path: `diff.ignoreText.${i}`, message: 'Enter a pattern, or remove it.' });
  });
  model.rules.value.forEach((row, i) => {
    const kind = VALUE_KIND[row.test];
    if (kind !== null && !row.value.trim())
      problems.push({
        path: `notifyWhen.${i}.${row.test}`,
        message: kind === 'number' ? 'Enter the number to compare with.' : 'Enter the text to look for.',
      });
  });
  return problems;
}

const idsOf = (id) => [id, `${id}-error`];

/**
 * The control an API path of the lists names, as [control id, error id], or null for another path.
 * A whole list's problem (too many) goes on the list's own error line, with its Add button to focus.
 */
export function listFieldOf(model, path) {
  let match = /^diff\.ignoreText(?:\.(\d+))?/.exec(path);
  if (match) {
    const row = match[1] !== undefined && model.patterns.value[Number(match[1])];
    return row ? idsOf(`f-pattern-${row.n}`) : ['f-ignoretext-add', 'f-ignoretext-error'];
  }
  match = /^notifyWhen(?:\.(\d+)(?:\.([^.]+))?)?/.exec(path);
  if (match) {
    const row = match[1] !== undefined && model.rules.value[Number(match[1])];
    if (!row) return ['f-rules-add', 'f-rules-error'];
    const key = match[2];
    if (key === 'selector') return idsOf(`f-rule-${row.n}-selector`);
    // A test's value is wrong (e.g. numberBelow not a number); any other problem of the rule is its test's.
    if (key && VALUE_KIND[key] && row.test === key) return idsOf(`f-rule-${row.n}-value`);
    return idsOf(`f-rule-${row.n}-test`);
  }
  match = /^capture\.steps(?:\.(\d+)(?:\.([^.]+))?)?/.exec(path);
  if (match) {
    const row = match[1] !== undefined && model.steps.value[Number(match[1])];
    if (!row) return ['f-steps-add', 'f-steps-error'];
    const part = { selector: 'selector', value: 'value', secret: 'secret' }[match[2]] ?? 'action';
    return idsOf(`f-step-${row.n}-${part}`);
  }
  return null;
}
