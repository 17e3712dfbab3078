// The form's state as signals: every control's value by its id, the editable lists' rows, and the
// problems shown (error text by error line id, the controls marked invalid). Made per opened form.
import { batch, signal } from '/assets/vendor/signals.js';
import { html } from '/assets/monitors-app/html.js';

export function createFormModel(initial) {
  let serial = 0;
  const model = {
    values: signal(initial.values),
    patterns: signal([]),
    rules: signal([]),
    steps: signal([]),
    regions: signal([]),
    filters: signal([]),
    /** The newest capture to pick elements on: { url, alt, width, height, blocks, takenAt } once loaded. */
    pickSource: signal(null),
    /** The field asking for an element: { target (its control's id), name (in words), apply(selector) }. */
    picking: signal(null),
    /** error line id → its words */
    errors: signal({}),
    /** ids of the controls a problem names */
    invalid: signal(new Set()),
    summaryError: signal(null),
    /** the id of the control to focus once drawn */
    focus: signal(null),
    nextSerial: () => ++serial,
    get: (id) => model.values.value[id] ?? '',
    set(id, value) {
      model.values.value = { ...model.values.value, [id]: value };
    },
    /** The text of a field, trimmed; or its lines, trimmed, without empty ones. */
    text: (id) => String(model.get(id)).trim(),
    lines: (id) =>
      String(model.get(id))
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    clearErrors() {
      batch(() => {
        model.errors.value = {};
        model.invalid.value = new Set();
        model.summaryError.value = null;
      });
    },
  };
  for (const [name, rows] of Object.entries(initial.lists))
    model[name].value = rows.map((row) => ({ ...row, n: model.nextSerial() }));
  return model;
}

/** Props binding a text-like control to the model, with its problem (if any) wired to it. */
export function bind(model, id, describedBy = '') {
  const errorId = model.errorOf?.[id] ?? `${id}-error`;
  const hasError = Boolean(model.errors.value[errorId]);
  const ids = [describedBy, hasError ? errorId : ''].filter(Boolean).join(' ');
  return {
    id,
    value: model.get(id),
    onInput: (event) => model.set(id, event.currentTarget.value),
    'aria-invalid': model.invalid.value.has(id) ? 'true' : undefined,
    'aria-describedby': ids || undefined,
  };
}

/** The same for a checkbox. */
export function bindCheck(model, id) {
  const props = bind(model, id);
  delete props.value;
  delete props.onInput;
  return {
    ...props,
    checked: Boolean(model.get(id)),
    onChange: (event) => model.set(id, event.currentTarget.checked),
  };
}

/** A control's error line: hidden while it has nothing to say. */
export function FieldError({ model, id }) {
  const words = model.errors.value[id];
  return html`<p class="field-error" id=${id} hidden=${!words}>${words ?? ''}</p>`;
}
