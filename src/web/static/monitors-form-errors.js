// The form's problems, each shown next to its field: the API's paths mapped to the controls (the main
// fields here, the advanced ones, the lists' rows and the regions in their modules), aria-invalid and
// aria-describedby set, and the first problem in the form's order focused (its <details> opened).
import { fieldSentence, labelOf } from '/assets/field-sentence.js';
import { ADVANCED_FIELDS } from '/assets/monitors-form-advanced.js';
import { listFieldOf } from '/assets/monitors-form-lists.js';
import { regionFieldOf } from '/assets/monitors-form-regions.js';
import { $, h, setAlert } from '/assets/monitors-util.js';

/** Where each field of the API shows its error: API path → [input id, error element id]. */
export const FIELDS = {
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
  ...ADVANCED_FIELDS,
};

/**
 * The field of an API path: a row of a list (`notifyWhen.1.numberBelow` → rule 2's value), else the
 * longest known prefix ("diff.ignoreSelectors.2" → diff.ignoreSelectors).
 */
export function fieldOf(path) {
  const listField = listFieldOf(String(path ?? '')) ?? regionFieldOf(String(path ?? ''));
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

export function clearFieldErrors() {
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
export function showFieldErrors(problems, summary) {
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
  // A problem inside the closed Advanced part opens it: a closed <details> hides its fields from focus.
  const details = first?.closest('details');
  if (details) details.open = true;
  if (first) first.focus();
  else $('form-error').scrollIntoView({ block: 'nearest' });
}
