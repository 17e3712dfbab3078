// The form's lists a monitor can hold any number of (up to the API's limits): diff.ignoreText patterns,
// notifyWhen rules and capture.steps. Each row has its own labelled controls and its own error line, so
// an API problem such as `notifyWhen.1.numberBelow` is shown beside the value of rule 2.
import { html } from '/assets/monitors-app/html.js';
import { PRICE_KINDS, RULE_TESTS as TESTS, Words } from '/assets/monitors-app/format.js';
import { bindCheck, FieldError } from '/assets/monitors-form/model.js';
import { PickButton } from '/assets/monitors-form/picker.js';

/** What a stored secret reads in an answer; sent back, it keeps the stored value (the API's rule). */
export const MASK = '••••';

/** The API's limit on each list; the Add button stops there (the API would refuse a 21st). */
export const MAX_ITEMS = 20;

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
/** Is every entry a rule (no all / any group inside)? */
const plainRules = (entries) => Array.isArray(entries) && entries.every((e) => e && !e.all && !e.any);

/**
 * How the form can show a monitor's notifyWhen: a plain list ("all"), or one `{any: [rules]}` ("any").
 * Any other structure (nested groups) is kept as stored: `locked`, edited through the API.
 */
export function ruleGroupOf(notifyWhen) {
  const entries = notifyWhen ?? [];
  if (plainRules(entries)) return { when: 'all', rules: entries, locked: false };
  if (entries.length === 1 && entries[0].any && plainRules(entries[0].any))
    return { when: 'any', rules: entries[0].any, locked: false };
  return { when: 'all', rules: [], locked: true };
}

/** A regular expression's flags as the form shows them: Match case, and the other flags kept as stored. */
function flagRow(flags, byDefault) {
  const stored = flags ?? byDefault;
  return { matchCase: !stored.includes('i'), extra: stored.replace('i', ''), flagsSet: flags !== undefined };
}

/** The flags to send for a row: none when the default stands and none were stored. */
function flagsOf(row, byDefault) {
  const flags = `${row.matchCase ? '' : 'i'}${row.extra ?? ''}`;
  return row.flagsSet || flags !== byDefault ? flags : undefined;
}

function ruleRow(rule) {
  const found = TESTS.find(([t]) => rule[t] !== undefined);
  const [test, , kind] = found ?? TESTS[0];
  const value = rule[test];
  const row = {
    selector: rule.selector ?? '',
    test,
    value: '',
    max: '',
    unit: 'percent',
    whileOn: rule.while === true,
  };
  if (kind === 'range' && Array.isArray(value)) Object.assign(row, { value: String(value[0]), max: String(value[1]) });
  else if (kind === 'by' && value && typeof value === 'object') {
    row.unit = value.amount !== undefined ? 'amount' : 'percent';
    row.value = String(value[row.unit]);
  } else if (kind !== null && kind !== 'stock' && value !== undefined) row.value = String(value);
  if (kind === 'regex') Object.assign(row, flagRow(rule.flags, 'i'));
  return row;
}

/** The rows of each list from a monitor (null: a new one). */
export function listRows(m) {
  return {
    // A string is case-insensitive by default; {pattern, flags} says its own flags.
    patterns: (m?.diff?.ignoreText ?? []).map((entry) =>
      typeof entry === 'string'
        ? { pattern: entry, matchCase: false, extra: '', flagsSet: false }
        : { pattern: entry.pattern ?? '', ...flagRow(entry.flags, 'i'), object: true },
    ),
    rules: ruleGroupOf(m?.notifyWhen).rules.map(ruleRow),
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
export function Cell({ model, label, id, grow, children }) {
  return html`<div class=${grow ? 'cell grow' : 'cell'}>
    <label for=${id}>${label}</label>
    ${children}
    <${FieldError} model=${model} id=${`${id}-error`} />
  </div>`;
}

export const invalidProps = (model, id) => {
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
export function EditList({ model, name, listId, listClass, addId, errorId, noun, addWords, blank, Row, movable }) {
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
  /** Order matters (filters): a row moves one place; the focus stays on the moved row's button, or its other one at an end. */
  const move = (i, by) => {
    const j = i + by;
    if (j < 0 || j >= rows.length) return;
    const next = [...rows];
    [next[i], next[j]] = [next[j], next[i]];
    model[name].value = next;
    const atEnd = j === 0 || j === rows.length - 1;
    const button = atEnd ? (by < 0 ? 'down' : 'up') : by < 0 ? 'up' : 'down';
    model.focus.value = `#${listId} > li[data-n="${rows[i].n}"] button.${button}`;
  };
  return html`<ol class=${listClass} id=${listId}>
      ${rows.map(
        (row, i) =>
          html`<li class="list-row" key=${row.n} data-n=${row.n}>
            <${Row} model=${model} row=${row} i=${i} update=${(patch) => update(i, patch)}>
              ${
                movable
                  ? html`<button type="button" class="small up" disabled=${i === 0} onClick=${() => move(i, -1)}>
                        <${Words} visible="Up" hidden=${`move ${noun} ${i + 1} up`} /></button
                      ><button
                        type="button"
                        class="small down"
                        disabled=${i === rows.length - 1}
                        onClick=${() => move(i, 1)}
                      >
                        <${Words} visible="Down" hidden=${`move ${noun} ${i + 1} down`} />
                      </button>`
                  : null
              }
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
    <div class="cell check-cell">
      <label class="check"
        ><input
          type="checkbox"
          class="match-case"
          id=${`${id}-case`}
          checked=${row.matchCase}
          onChange=${(event) => update({ matchCase: event.currentTarget.checked })}
        />
        Match case<span class="sr-only">${` of pattern ${i + 1}`}</span></label
      >
    </div>
    ${children}
  </div>`;
}

/** A row changed by its serial (a picked element arrives after other redraws). */
export const setRow = (model, name, n, patch) => {
  model[name].value = model[name].value.map((row) => (row.n === n ? { ...row, ...patch } : row));
};

const takesValue = (kind) => kind !== null && kind !== 'stock';
const VALUE_HINT = {
  number: 'e.g. 19.99',
  price: 'e.g. 19.99',
  range: 'e.g. 10',
  by: 'e.g. 10',
  text: 'e.g. In stock',
  regex: 'e.g. in\\s+stock',
};

function RuleRow({ model, row, i, update, children }) {
  const kind = VALUE_KIND[row.test];
  const priced = PRICE_KINDS.has(kind);
  const id = (part) => `f-rule-${row.n}-${part}`;
  const ruleName = `rule ${i + 1}`;
  return html`<fieldset>
    <legend>Rule ${i + 1}</legend>
    <div class="cells">
      <${Cell} model=${model} label="Element (CSS selector)" id=${id('selector')} grow>
        <div class="with-pick">
          <input
            type="text"
            class="mono selector"
            maxlength="1000"
            spellcheck="false"
            autocomplete="off"
            disabled=${priced}
            placeholder=${priced ? 'no element: reads price and stock' : 'e.g. .price'}
            value=${priced ? '' : row.selector}
            onInput=${(event) => update({ selector: event.currentTarget.value })}
            ...${invalidProps(model, id('selector'))}
          />
          ${
            priced
              ? null
              : html`<${PickButton}
                  model=${model}
                  target=${id('selector')}
                  name=${`the element of ${ruleName}`}
                  apply=${(selector) => setRow(model, 'rules', row.n, { selector })}
                />`
          }
        </div>
      <//>
      <${Cell} model=${model} label="Test" id=${id('test')}>
        <select
          class="test"
          value=${row.test}
          onChange=${(event) => {
            const test = event.currentTarget.value;
            update(takesValue(VALUE_KIND[test]) ? { test } : { test, value: '', max: '' });
          }}
          ...${invalidProps(model, id('test'))}
        >
          ${TESTS.map(([t, words]) => html`<option value=${t}>${words}</option>`)}
        </select>
      <//>
      <${Cell} model=${model} label=${kind === 'range' ? 'From' : 'Value'} id=${id('value')}>
        <input
          type="text"
          class="value"
          maxlength="1000"
          spellcheck="false"
          autocomplete="off"
          disabled=${!takesValue(kind)}
          inputmode=${kind === 'text' || kind === 'regex' ? 'text' : 'decimal'}
          placeholder=${VALUE_HINT[kind] ?? 'no value'}
          value=${row.value}
          onInput=${(event) => update({ value: event.currentTarget.value })}
          ...${invalidProps(model, id('value'))}
        />
      <//>
      ${
        kind === 'range'
          ? html`<${Cell} model=${model} label="To" id=${id('max')}>
              <input
                type="text"
                class="max"
                maxlength="100"
                autocomplete="off"
                inputmode="decimal"
                placeholder="e.g. 30"
                value=${row.max}
                onInput=${(event) => update({ max: event.currentTarget.value })}
                ...${invalidProps(model, id('max'))}
              />
            <//>`
          : null
      }
      ${
        kind === 'by'
          ? html`<${Cell} model=${model} label="In" id=${id('unit')}>
              <select
                class="unit"
                value=${row.unit}
                onChange=${(event) => update({ unit: event.currentTarget.value })}
                ...${invalidProps(model, id('unit'))}
              >
                <option value="percent">percent</option>
                <option value="amount">amount (the price's currency)</option>
              </select>
            <//>`
          : null
      }
      <div class="cell check-cell">
        ${
          kind === 'regex'
            ? html`<label class="check"
                ><input
                  type="checkbox"
                  class="match-case"
                  id=${id('case')}
                  checked=${row.matchCase}
                  onChange=${(event) => update({ matchCase: event.currentTarget.checked })}
                />
                Match case<span class="sr-only">${` of ${ruleName}`}</span></label
              >`
            : null
        }
        <label class="check"
          ><input
            type="checkbox"
            class="while"
            checked=${row.whileOn}
            onChange=${(event) => update({ whileOn: event.currentTarget.checked })}
            ...${invalidProps(model, id('while'))}
          />
          Only while true<span class="sr-only">${` (${ruleName})`}</span></label
        >
        <${FieldError} model=${model} id=${`${id('while')}-error`} />
      </div>
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
    blank=${{ pattern: '', matchCase: false, extra: '', flagsSet: false }}
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
    blank=${{ selector: '', test: TESTS[0][0], value: '', max: '', unit: 'percent', whileOn: false }}
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

/** One rule as the API takes it, from its row. */
function readRule(row) {
  const kind = VALUE_KIND[row.test];
  const rule = PRICE_KINDS.has(kind) ? {} : { selector: row.selector.trim() };
  if (kind === 'range') rule[row.test] = [ruleNumber(row.value), ruleNumber(row.max)];
  else if (kind === 'by') rule[row.test] = { [row.unit]: ruleNumber(row.value) };
  else if (kind === 'number' || kind === 'price') rule[row.test] = ruleNumber(row.value);
  else if (kind === 'text' || kind === 'regex') rule[row.test] = row.value;
  else rule[row.test] = true;
  if (kind === 'regex') {
    const flags = flagsOf(row, 'i');
    if (flags !== undefined) rule.flags = flags;
  }
  if (row.whileOn) rule.while = true;
  return rule;
}

/**
 * The lists as the API takes them. notifyWhen: the rules as a list ("all"), or in one {any: [...]}; a
 * structure the form cannot show (`locked`) is left out, so a Merge Patch keeps it as stored.
 */
export function readLists(model) {
  const ignoreText = model.patterns.value.map((row) => {
    const flags = flagsOf(row, 'i');
    return row.object || flags !== undefined ? { pattern: row.pattern, flags: flags ?? 'i' } : row.pattern;
  });
  const rules = model.rules.value.map(readRule);
  const notifyWhen = model.get('f-rules-locked')
    ? undefined
    : model.get('f-rules-when') === 'any' && rules.length
      ? [{ any: rules }]
      : rules;
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

/** The API path of rule i as the form will send it (inside the group when "any"). */
const rulePathOf = (model) => (i) =>
  model.get('f-rules-when') === 'any' ? `notifyWhen.0.any.${i}` : `notifyWhen.${i}`;

/** Problems the browser can name before asking: empty patterns and rule values (the API's words would be vaguer). */
export function listProblems(model) {
  const problems = [];
  model.patterns.value.forEach((row, i) => {
    if (!row.pattern) problems.push({ path: `diff.ignoreText.${i}`, message: 'Enter a pattern, or remove it.' });
  });
  const at = rulePathOf(model);
  model.rules.value.forEach((row, i) => {
    const kind = VALUE_KIND[row.test];
    if (takesValue(kind) && !row.value.trim())
      problems.push({
        path: `${at(i)}.${row.test}`,
        message:
          kind === 'text'
            ? 'Enter the text to look for.'
            : kind === 'regex'
              ? 'Enter the pattern to match.'
              : 'Enter the number to compare with.',
      });
    if (kind === 'range' && !row.max.trim())
      problems.push({ path: `${at(i)}.${row.test}.1`, message: 'Enter the highest price that is fine.' });
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
  // Rules grouped in one {any: [...]}: the API's `notifyWhen.0.any.2` is the form's rule 3.
  const rulePath =
    model.get('f-rules-when') === 'any' ? path.replace(/^notifyWhen\.0\.any(?=\.|$)/, 'notifyWhen') : path;
  match = /^notifyWhen(?:\.(\d+)(?:\.([^.]+)(?:\.([^.]+))?)?)?/.exec(rulePath);
  if (match) {
    const row = match[1] !== undefined && model.rules.value[Number(match[1])];
    if (!row) return ['f-rules-add', 'f-rules-error'];
    const key = match[2];
    if (key === 'selector') return idsOf(`f-rule-${row.n}-selector`);
    if (key === 'while') return idsOf(`f-rule-${row.n}-while`);
    if (key === 'flags') return idsOf(`f-rule-${row.n}-value`);
    // priceOutside.1: the range's top; any other part of a test's value is its value.
    if (key === 'priceOutside' && row.test === key && match[3] === '1') return idsOf(`f-rule-${row.n}-max`);
    // A test's value is wrong (e.g. numberBelow not a number); any other problem of the rule is its test's.
    if (key && VALUE_KIND[key] !== undefined && takesValue(VALUE_KIND[key]) && row.test === key)
      return idsOf(`f-rule-${row.n}-value`);
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
