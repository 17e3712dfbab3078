// Errors in words: the API's error body as a title and explanation, each invalid field marked next to
// the field (aria-invalid, its .field-error), and the problems found before sending.
import { ApiError } from '/assets/api.js';
import { $, els, form, outputOf, sourceOf } from '/assets/converter-form.js';
import { fieldSentence } from '/assets/field-sentence.js';

/** The input a detail's path (e.g. "viewport.width", "margin.top") is about, if the form has one. */
function fieldFor(path) {
  const head = path.split('.')[0];
  const map = {
    url: els.url,
    html: els.html,
    device: els.device,
    fullPage: els.fullpage,
    quality: els.quality,
    colorScheme: els.dark,
    landscape: els.landscape,
    margin: els.margin,
    waitUntil: els.wait,
    delay: els.delay,
    format: outputOf() === 'pdf' ? els.paper : $('out-pdf'),
  };
  if (path === 'viewport.height') return els.vh;
  if (head === 'viewport') return els.vw;
  if (head === 'url' && sourceOf() === 'html') return els.html; // "give exactly one of url or html"
  // An upload's refusals name a file (its path, "index.html") or the upload's count: the file picker.
  if (sourceOf() === 'files' && !(head in map)) return els.files;
  return map[head];
}

function errorElementOf(input) {
  if (input.name === 'output') return $('output-error');
  return $(`${input.id}-error`);
}

function setFieldError(input, message) {
  const target = errorElementOf(input);
  if (!target) return;
  const group = input.name === 'output' ? $('output') : input;
  group.setAttribute('aria-invalid', 'true');
  // One line per distinct message (margin.top … margin.left all say the same thing).
  const lines = target.textContent ? target.textContent.split('\n') : [];
  if (!lines.includes(message)) lines.push(message);
  target.textContent = lines.join('\n');
  target.hidden = false;
  const described = new Set((group.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean));
  described.add(target.id);
  group.setAttribute('aria-describedby', [...described].join(' '));
}

export function clearFieldError(input) {
  const target = errorElementOf(input);
  const group = input.name === 'output' ? $('output') : input;
  group.removeAttribute('aria-invalid');
  if (!target) return;
  target.textContent = '';
  target.hidden = true;
}

export function clearErrors() {
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  for (const p of form.querySelectorAll('.field-error')) {
    p.textContent = '';
    p.hidden = true;
  }
  els.error.replaceChildren();
}

// Editing a field clears its error.
form.addEventListener('input', (event) => {
  const input = event.target;
  if (input.getAttribute?.('aria-invalid') === 'true') clearFieldError(input);
});

const TITLES = {
  url_blocked: 'That address is blocked',
  render_timeout: 'The render timed out',
  render_failed: 'The page could not be rendered',
  render_crashed: 'The page crashed while rendering',
  invalid_request: 'Some fields need fixing',
  unauthorized: 'The API key was not accepted',
  rate_limited: 'Too many conversions',
  queue_full: 'The service is busy',
  payload_too_large: 'The input is too large',
  unavailable: 'The service is unavailable',
  network: 'The service could not be reached',
  internal: 'Something went wrong on the service',
};

const FIELD_NAMES = {
  url: 'Page address',
  html: 'HTML',
  'viewport.width': 'Viewport width',
  'viewport.height': 'Viewport height',
  device: 'Device',
  fullPage: 'Full page',
  quality: 'JPG quality',
  colorScheme: 'Dark mode',
  format: 'Paper size',
  landscape: 'Landscape',
  waitUntil: 'Wait until',
  delay: 'Extra delay',
};
/** The explanation joins two sentences; the service's message starts in lower case and ends bare. */
function sentence(text) {
  const joined = String(text).replace(/([.!?] )([a-z])/g, (_, gap, letter) => gap + letter.toUpperCase());
  return /[.!?]$/.test(joined) ? joined : `${joined}.`;
}

/** A field's sentence from the API under the form's name for it, as a full sentence. */
const fieldWords = (path, message) => sentence(fieldSentence(path, message, fieldName(path)));

const fieldName = (path) => FIELD_NAMES[path] ?? (path.startsWith('margin') ? 'Margins' : path || 'Request');

/** Shows an error in words: a title, the explanation from the error body, and each invalid field. */
export function showError(err) {
  const box = document.createElement('div');
  box.className = 'alert error';
  const title = document.createElement('p');
  title.className = 'error-title';
  const strong = document.createElement('strong');
  const words = document.createElement('p');
  if (err instanceof ApiError) {
    strong.textContent = TITLES[err.code] ?? 'The conversion failed';
    title.append(strong);
    if (err.status) {
      const code = document.createElement('span');
      code.className = 'error-code';
      code.textContent = `${err.status} ${err.code}`;
      title.append(' ', code);
    }
    // Only a refused request's details are about fields; any other error's hold raw codes (net::ERR_…).
    const fieldDetails = err.code === 'invalid_request' ? (err.details ?? []) : [];
    const raw = err.code === 'invalid_request' ? [] : (err.details ?? []);
    const details = fieldDetails;
    // With field details the list says it all; otherwise the service's sentence, once.
    words.textContent =
      err.code === 'invalid_request' && details.length
        ? `Fix the highlighted field${details.length === 1 ? '' : 's'}:`
        : sentence(err.explanation);
    box.append(title, words);
    if (raw.length) {
      // For whoever reports the problem: the codes the service kept, in small print under the sentence.
      const tech = document.createElement('p');
      tech.className = 'error-raw';
      const code = document.createElement('code');
      code.textContent = raw.map((d) => d.message).join('; ');
      tech.append('Technical detail: ', code);
      box.append(tech);
    }
    if (details.length) {
      const list = document.createElement('ul');
      const seen = new Set();
      for (const { path, message } of details) {
        const line = fieldWords(path, message);
        if (seen.has(line)) continue;
        seen.add(line);
        const li = document.createElement('li');
        li.textContent = line;
        list.append(li);
        const input = fieldFor(path);
        if (input) setFieldError(input, line);
      }
      box.append(list);
    }
    if (err.code === 'url_blocked' && sourceOf() === 'url') setFieldError(els.url, 'This address is not allowed.');
  } else {
    strong.textContent = 'The conversion failed';
    title.append(strong);
    words.textContent = String(err?.message ?? err);
    box.append(title, words);
  }
  els.error.replaceChildren(box);
}

export function showProblems(problems) {
  for (const [input, message] of problems) setFieldError(input, message);
  const box = document.createElement('div');
  box.className = 'alert error';
  const title = document.createElement('p');
  const strong = document.createElement('strong');
  strong.textContent = problems.length === 1 ? 'One field needs fixing' : 'Some fields need fixing';
  title.append(strong);
  const list = document.createElement('ul');
  for (const [input, message] of problems) {
    const li = document.createElement('li');
    li.textContent = `${document.querySelector(`label[for="${input.id}"]`)?.firstChild?.textContent?.trim() ?? input.name}: ${message}`;
    list.append(li);
  }
  box.append(title, list);
  els.error.replaceChildren(box);
  problems[0][0].focus();
}
