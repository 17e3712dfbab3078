// The form's lists a monitor can hold any number of (up to the API's limits): diff.ignoreText patterns,
// notifyWhen rules and capture.steps. Each row has its own labelled controls and its own error line, so
// an API problem such as `notifyWhen.1.numberBelow` is shown beside the value of rule 2.
import { $, h, RULE_TESTS as TESTS, setButtonText } from '/assets/monitors-util.js';

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

let serial = 0;

/** A control with its label above and its error line below; the error line's id is `${control.id}-error`. */
function cell(labelText, control, extraClass = '') {
  return h(
    'div',
    { class: `cell ${extraClass}`.trim() },
    h('label', { for: control.id }, labelText),
    control,
    h('p', { class: 'field-error', id: `${control.id}-error`, hidden: true }),
  );
}

function removeButton(noun) {
  return h('button', { type: 'button', class: 'small remove', dataset: { remove: noun } });
}

/**
 * One editable list: rows built by `build`, numbered in their legends / labels and remove buttons,
 * an Add button that focuses the new row, and Remove that moves the focus to the next row (or Add).
 */
function makeList({ listId, addId, noun, build, renumber }) {
  const list = $(listId);
  const add = $(addId);
  const rows = () => [...list.children];
  const update = () => {
    rows().forEach((row, i) => {
      renumber(row, i + 1);
      setButtonText(row.querySelector('button.remove'), 'Remove', `${noun} ${i + 1}`);
    });
    add.disabled = rows().length >= MAX_ITEMS;
  };
  const append = (item) => {
    const row = build(item ?? null, ++serial);
    list.append(row);
    update();
    return row;
  };
  add.addEventListener('click', () => {
    const row = append();
    row.querySelector('input, select')?.focus();
  });
  list.addEventListener('click', (event) => {
    const button = event.target.closest('button.remove');
    if (!button) return;
    const row = button.closest('li');
    const next = row.nextElementSibling ?? row.previousElementSibling;
    row.remove();
    update();
    (next?.querySelector('input, select') ?? add).focus();
  });
  return {
    rows,
    set(items) {
      list.replaceChildren();
      for (const item of items ?? []) append(item);
      update();
    },
  };
}

// -------------------------------------------------------------------------------- diff.ignoreText

const patterns = makeList({
  listId: 'f-ignoretext-list',
  addId: 'f-ignoretext-add',
  noun: 'pattern',
  build(pattern, n) {
    const input = h('input', {
      type: 'text',
      id: `f-pattern-${n}`,
      class: 'mono pattern',
      spellcheck: 'false',
      autocomplete: 'off',
      placeholder: 'e.g. \\d{1,2}:\\d{2}',
    });
    input.value = pattern ?? '';
    return h(
      'li',
      { class: 'list-row' },
      h('div', { class: 'cells' }, cell('Pattern', input, 'grow'), removeButton('pattern')),
    );
  },
  renumber(row, i) {
    row.querySelector('label').textContent = `Pattern ${i}`;
  },
});

// -------------------------------------------------------------------------------- notifyWhen

function syncRule(row) {
  const test = row.querySelector('select.test').value;
  const value = row.querySelector('input.value');
  const kind = VALUE_KIND[test];
  value.disabled = kind === null;
  if (kind === null) value.value = '';
  value.inputMode = kind === 'number' ? 'decimal' : 'text';
  value.placeholder = kind === 'number' ? 'e.g. 19.99' : kind === 'text' ? 'e.g. In stock' : 'no value';
}

const rules = makeList({
  listId: 'f-rules-list',
  addId: 'f-rules-add',
  noun: 'rule',
  build(rule, n) {
    const selector = h('input', {
      type: 'text',
      id: `f-rule-${n}-selector`,
      class: 'mono selector',
      maxlength: 1000,
      spellcheck: 'false',
      autocomplete: 'off',
      placeholder: 'e.g. .price',
    });
    const test = h(
      'select',
      { id: `f-rule-${n}-test`, class: 'test' },
      TESTS.map(([t, words]) => h('option', { value: t }, words)),
    );
    const value = h('input', {
      type: 'text',
      id: `f-rule-${n}-value`,
      class: 'value',
      maxlength: 1000,
      spellcheck: 'false',
      autocomplete: 'off',
    });
    const found = rule && TESTS.find(([t]) => rule[t] !== undefined);
    if (rule) selector.value = rule.selector ?? '';
    if (found) {
      test.value = found[0];
      if (found[2] !== null) value.value = String(rule[found[0]]);
    }
    const row = h(
      'li',
      { class: 'list-row' },
      h(
        'fieldset',
        {},
        h('legend', {}, 'Rule'),
        h(
          'div',
          { class: 'cells' },
          cell('Element (CSS selector)', selector, 'grow'),
          cell('Test', test),
          cell('Value', value),
          removeButton('rule'),
        ),
      ),
    );
    test.addEventListener('change', () => syncRule(row));
    syncRule(row);
    return row;
  },
  renumber(row, i) {
    row.querySelector('legend').textContent = `Rule ${i}`;
  },
});

// -------------------------------------------------------------------------------- capture.steps

function syncStep(row) {
  const needs = ACTIONS[row.querySelector('select.action').value];
  const selector = row.querySelector('input.selector');
  const value = row.querySelector('input.value');
  const secret = row.querySelector('input.secret');
  selector.disabled = needs.selector === false;
  selector.placeholder =
    needs.selector === false
      ? 'no selector'
      : needs.selector === 'optional'
        ? 'optional, e.g. #search'
        : 'e.g. #login button';
  value.disabled = needs.value === null;
  value.placeholder = needs.value ?? 'no value';
  secret.disabled = row.querySelector('select.action').value !== 'fill';
  if (secret.disabled && secret.checked) {
    secret.checked = false;
    // A "••••" means "the stored secret": once the value is no longer secret it must be typed again.
    if (value.value === MASK) value.value = '';
  }
  value.type = secret.checked ? 'password' : 'text';
}

const steps = makeList({
  listId: 'f-steps-list',
  addId: 'f-steps-add',
  noun: 'step',
  build(step, n) {
    const action = h(
      'select',
      { id: `f-step-${n}-action`, class: 'action' },
      Object.keys(ACTIONS).map((a) => h('option', { value: a }, a)),
    );
    const selector = h('input', {
      type: 'text',
      id: `f-step-${n}-selector`,
      class: 'mono selector',
      maxlength: 1000,
      spellcheck: 'false',
      autocomplete: 'off',
    });
    const value = h('input', {
      type: 'text',
      id: `f-step-${n}-value`,
      class: 'value',
      spellcheck: 'false',
      autocomplete: 'off',
    });
    const secret = h('input', { type: 'checkbox', id: `f-step-${n}-secret`, class: 'secret' });
    if (step) {
      action.value = step.action;
      selector.value = step.selector ?? '';
      value.value = step.value ?? '';
      secret.checked = step.secret === true;
      // The form has no field for a secret's origin (set through the API): kept as it was, so a save
      // with the secret's "••••" still stands for the stored value.
      if (step.origin !== undefined) secret.dataset.origin = step.origin;
    }
    const row = h(
      'li',
      { class: 'list-row' },
      h(
        'fieldset',
        {},
        h('legend', {}, 'Step'),
        h(
          'div',
          { class: 'cells' },
          cell('Action', action),
          cell('Element (selector)', selector, 'grow'),
          cell('Value', value, 'grow'),
          h(
            'div',
            { class: 'cell secret-cell' },
            h('label', { class: 'check' }, secret, ' Secret'),
            h('p', { class: 'field-error', id: `${secret.id}-error`, hidden: true }),
          ),
          removeButton('step'),
        ),
      ),
    );
    action.addEventListener('change', () => syncStep(row));
    secret.addEventListener('change', () => {
      // A "••••" means "the stored secret": once the value is no longer secret it must be typed again.
      if (!secret.checked && value.value === MASK) value.value = '';
      syncStep(row);
    });
    syncStep(row);
    return row;
  },
  renumber(row, i) {
    row.querySelector('legend').textContent = `Step ${i}`;
  },
});

// -------------------------------------------------------------------------------- form ↔ monitor

export function setLists(m) {
  patterns.set(m?.diff?.ignoreText ?? []);
  rules.set(m?.notifyWhen ?? []);
  steps.set(m?.capture?.steps ?? []);
}

/** A rule's number as typed: a number (a decimal comma accepted), else the text so the API names the problem. */
function ruleNumber(raw) {
  const text = raw.trim();
  const n = Number(/^[-+]?\d+,\d+$/.test(text) ? text.replace(',', '.') : text);
  return Number.isFinite(n) ? n : text;
}

export function readLists() {
  const ignoreText = patterns.rows().map((row) => row.querySelector('input').value);
  const notifyWhen = rules.rows().map((row) => {
    const test = row.querySelector('select.test').value;
    const raw = row.querySelector('input.value').value;
    const kind = VALUE_KIND[test];
    return {
      selector: row.querySelector('input.selector').value.trim(),
      [test]: kind === null ? true : kind === 'number' ? ruleNumber(raw) : raw,
    };
  });
  const captureSteps = steps.rows().map((row) => {
    const action = row.querySelector('select.action').value;
    const selector = row.querySelector('input.selector');
    const value = row.querySelector('input.value');
    const secret = row.querySelector('input.secret');
    const step = { action };
    if (!selector.disabled && selector.value.trim()) step.selector = selector.value.trim();
    // fill may type nothing (clear a field); the others need something, and the API says so when it is missing.
    if (!value.disabled && (value.value !== '' || action === 'fill')) step.value = value.value;
    if (secret.checked) step.secret = true;
    if (secret.checked && secret.dataset.origin) step.origin = secret.dataset.origin;
    return step;
  });
  return { ignoreText, notifyWhen, steps: captureSteps };
}

/** Problems the browser can name before asking: empty patterns and rule values (the API's words would be vaguer). */
export function listProblems() {
  const problems = [];
  patterns.rows().forEach((row, i) => {
    if (!row.querySelector('input').value)
      problems.push({ path: `diff.ignoreText.${i}`, message: 'Enter a pattern, or remove it.' });
  });
  rules.rows().forEach((row, i) => {
    const test = row.querySelector('select.test').value;
    const kind = VALUE_KIND[test];
    if (kind !== null && !row.querySelector('input.value').value.trim()) {
      problems.push({
        path: `notifyWhen.${i}.${test}`,
        message: kind === 'number' ? 'Enter the number to compare with.' : 'Enter the text to look for.',
      });
    }
  });
  return problems;
}

/**
 * The control an API path of the lists names, as [control id, error id], or null for another path.
 * A whole list's problem (too many) goes on the list's own error line, with its Add button to focus.
 */
export function listFieldOf(path) {
  let match = /^diff\.ignoreText(?:\.(\d+))?/.exec(path);
  if (match) {
    const row = match[1] !== undefined && patterns.rows()[Number(match[1])];
    return row ? idsOf(row.querySelector('input')) : ['f-ignoretext-add', 'f-ignoretext-error'];
  }
  match = /^notifyWhen(?:\.(\d+)(?:\.([^.]+))?)?/.exec(path);
  if (match) {
    const row = match[1] !== undefined && rules.rows()[Number(match[1])];
    if (!row) return ['f-rules-add', 'f-rules-error'];
    const key = match[2];
    if (key === 'selector') return idsOf(row.querySelector('input.selector'));
    // A test's value is wrong (e.g. numberBelow not a number); any other problem of the rule is its test's.
    if (key && VALUE_KIND[key] && row.querySelector('select.test').value === key)
      return idsOf(row.querySelector('input.value'));
    return idsOf(row.querySelector('select.test'));
  }
  match = /^capture\.steps(?:\.(\d+)(?:\.([^.]+))?)?/.exec(path);
  if (match) {
    const row = match[1] !== undefined && steps.rows()[Number(match[1])];
    if (!row) return ['f-steps-add', 'f-steps-error'];
    const control =
      { selector: 'input.selector', value: 'input.value', secret: 'input.secret' }[match[2]] ?? 'select.action';
    return idsOf(row.querySelector(control));
  }
  return null;
}

const idsOf = (control) => [control.id, `${control.id}-error`];
