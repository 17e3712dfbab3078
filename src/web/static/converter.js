// The public converter at `/`: builds a request for POST /api/pdf or /api/image from the form, shows the
// result (image inline, PDF embedded) with a download link, errors in words, and the same call as curl.
import { api, ApiError, storedKey, storeKey } from './api.js';

const SAMPLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Invoice INV-2026-0042</title>
<style>
  :root { --ink: #1c2330; --muted: #667085; --line: #e4e7ec; --accent: #2456d6; --paper: #fff; --band: #f5f7fb; }
  @media (prefers-color-scheme: dark) {
    :root { --ink: #e6e9ef; --muted: #9aa4b5; --line: #2c3442; --accent: #6d94ff; --paper: #11151c; --band: #1a2029; }
  }
  body { margin: 0; padding: 40px; font: 14px/1.5 system-ui, "Liberation Sans", sans-serif; color: var(--ink); background: var(--paper); }
  header { display: flex; justify-content: space-between; align-items: flex-start; gap: 24px; }
  .logo { font-size: 22px; font-weight: 800; color: var(--accent); }
  h1 { margin: 0; font-size: 28px; letter-spacing: .02em; }
  .muted { color: var(--muted); }
  .right { text-align: right; }
  .parties { display: flex; gap: 48px; margin: 32px 0; }
  .parties h2 { font-size: 11px; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); margin: 0 0 4px; }
  table { width: 100%; border-collapse: collapse; }
  th { text-align: left; font-size: 11px; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); padding: 8px; border-bottom: 2px solid var(--line); }
  td { padding: 10px 8px; border-bottom: 1px solid var(--line); }
  .num { text-align: right; font-variant-numeric: tabular-nums; }
  tfoot td { border: 0; padding: 6px 8px; }
  tfoot tr.total td { font-size: 18px; font-weight: 700; border-top: 2px solid var(--ink); padding-top: 12px; }
  .note { margin-top: 40px; padding: 16px; background: var(--band); border-radius: 8px; }
</style>
</head>
<body>
<header>
  <div>
    <div class="logo">Northwind Studio</div>
    <div class="muted">12 Harbour Street, Bristol BS1 4RN</div>
  </div>
  <div class="right">
    <h1>Invoice</h1>
    <div class="muted">INV-2026-0042 · 14 March 2026</div>
  </div>
</header>
<section class="parties">
  <div><h2>Billed to</h2>Acme Corporation<br>400 Market Street<br>San Francisco, CA 94105</div>
  <div><h2>Due</h2>13 April 2026<br><span class="muted">30 days</span></div>
</section>
<table>
  <thead><tr><th>Description</th><th class="num">Hours</th><th class="num">Rate</th><th class="num">Amount</th></tr></thead>
  <tbody>
    <tr><td>Website redesign — discovery and wireframes</td><td class="num">18</td><td class="num">€95.00</td><td class="num">€1,710.00</td></tr>
    <tr><td>Visual design, 6 page templates</td><td class="num">32</td><td class="num">€95.00</td><td class="num">€3,040.00</td></tr>
    <tr><td>Front-end build and accessibility review</td><td class="num">24</td><td class="num">€95.00</td><td class="num">€2,280.00</td></tr>
  </tbody>
  <tfoot>
    <tr><td colspan="3" class="num muted">Subtotal</td><td class="num">€7,030.00</td></tr>
    <tr><td colspan="3" class="num muted">VAT 20%</td><td class="num">€1,406.00</td></tr>
    <tr class="total"><td colspan="3" class="num">Total due</td><td class="num">€8,436.00</td></tr>
  </tfoot>
</table>
<p class="note">Thank you for your business. Please pay by bank transfer to IBAN GB29 NWBK 6016 1331 9268 19, quoting the invoice number.</p>
</body>
</html>
`;

const DEFAULT_VIEWPORT = { width: 1280, height: 800 };
const EXT = { pdf: 'pdf', png: 'png', jpg: 'jpg' };
const TYPE_NAME = { pdf: 'PDF', png: 'PNG', jpg: 'JPG' };

const $ = (id) => document.getElementById(id);
const form = $('convert-form');
const els = {
  url: $('url'), html: $('html'), paper: $('paper'), margin: $('margin'), device: $('device'), vw: $('vw'), vh: $('vh'),
  quality: $('quality'), wait: $('wait'), delay: $('delay'), fullpage: $('fullpage'), landscape: $('landscape'), dark: $('dark'),
  key: $('key'), convert: $('convert'), status: $('status'), error: $('error'), result: $('result'),
};

const sourceOf = () => form.elements.source.value;
const outputOf = () => form.elements.output.value;

// ---- the form's state -------------------------------------------------------------------------------

/** Shows the source's panel and only the options that apply to the chosen output. */
function syncForm() {
  const source = sourceOf();
  $('panel-url').hidden = source !== 'url';
  $('panel-html').hidden = source !== 'html';
  const output = outputOf();
  for (const el of form.querySelectorAll('[data-for]')) {
    const want = el.dataset.for;
    el.hidden = !(want === output || (want === 'image' && output !== 'pdf'));
  }
  // A device brings its own viewport.
  for (const el of form.querySelectorAll('.viewport-opt')) el.hidden = els.device.value !== '';
}

for (const radio of form.querySelectorAll('input[name="source"], input[name="output"]')) radio.addEventListener('change', syncForm);
els.device.addEventListener('change', syncForm);

if (!els.html.value.trim()) els.html.value = SAMPLE_HTML;
$('reset-sample').addEventListener('click', () => {
  els.html.value = SAMPLE_HTML;
  clearFieldError(els.html);
  els.html.focus();
});

// The optional key: stored in this browser, never printed.
els.key.value = storedKey();
function syncKey() {
  $('key-badge').hidden = !els.key.value.trim();
}
els.key.addEventListener('change', () => { storeKey(els.key.value.trim()); syncKey(); });
$('forget-key').addEventListener('click', () => {
  els.key.value = '';
  storeKey('');
  syncKey();
  els.key.focus();
});
syncKey();
syncForm();

// ---- building the request ---------------------------------------------------------------------------

/** A number field's value: its default when empty, or an error when the browser could not read it. */
function numberOf(input, fallback, problems) {
  if (input.validity.badInput) {
    problems.push([input, 'Enter a number.']);
    return fallback;
  }
  return input.value.trim() === '' ? fallback : Number(input.value);
}

/**
 * The request body for the chosen output: only what differs from the API's defaults (besides the
 * format), so the curl command shows what the user actually chose.
 */
function buildRequest() {
  const problems = [];
  const output = outputOf();
  const body = {};
  if (sourceOf() === 'url') {
    let url = els.url.value.trim();
    if (url && !/^[a-z][a-z0-9+.-]*:/i.test(url)) {
      url = `https://${url}`; // "example.com" means what a browser's address bar would make of it
      els.url.value = url;
    }
    if (!url) problems.push([els.url, 'Enter the address of a page, e.g. https://example.com.']);
    body.url = url;
  } else {
    if (!els.html.value.trim()) problems.push([els.html, 'Enter some HTML, or restore the sample.']);
    body.html = els.html.value;
  }
  if (output === 'pdf') {
    body.format = els.paper.value;
    if (els.landscape.checked) body.landscape = true;
    const margin = els.margin.value.trim();
    if (margin && margin !== '10mm') body.margin = { top: margin, right: margin, bottom: margin, left: margin };
  } else {
    body.format = output === 'jpg' ? 'jpeg' : 'png';
    if (output === 'jpg') {
      const quality = numberOf(els.quality, 80, problems);
      if (quality !== 80) body.quality = quality;
    }
    if (els.fullpage.checked) body.fullPage = true;
  }
  if (els.device.value) {
    body.device = els.device.value;
  } else {
    const width = numberOf(els.vw, DEFAULT_VIEWPORT.width, problems);
    const height = numberOf(els.vh, DEFAULT_VIEWPORT.height, problems);
    if (width !== DEFAULT_VIEWPORT.width || height !== DEFAULT_VIEWPORT.height) body.viewport = { width, height };
  }
  if (els.dark.checked) body.colorScheme = 'dark';
  if (els.wait.value !== 'load') body.waitUntil = els.wait.value;
  const delay = numberOf(els.delay, 0, problems);
  if (delay !== 0) body.delay = delay;
  return {
    endpoint: output === 'pdf' ? '/api/pdf' : '/api/image',
    body, output, filename: `result.${EXT[output]}`, problems,
  };
}

/** Quotes a word for a POSIX shell: single quotes, each inner ' written as '\''. */
export function shellQuote(text) {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}

/** The curl command for a request; the key is only ever referred to as $PAGEWATCH_KEY. */
export function curlCommand({ endpoint, body, filename }, origin, withKey) {
  const lines = [
    `curl -X POST ${shellQuote(origin + endpoint)}`,
    `-H 'content-type: application/json'`,
    ...(withKey ? ['-H "Authorization: Bearer $PAGEWATCH_KEY"'] : []),
    `--data-raw ${shellQuote(JSON.stringify(body))}`,
    `-o ${filename}`,
  ];
  return lines.join(' \\\n  ');
}

function showCurl(request) {
  const pre = $('curl');
  pre.textContent = curlCommand(request, location.origin, Boolean(els.key.value.trim()));
  pre.dataset.endpoint = request.endpoint;
  pre.dataset.body = JSON.stringify(request.body);
  $('copy-status').textContent = '';
  $('curl-section').hidden = false;
}

$('copy').addEventListener('click', async () => {
  const pre = $('curl');
  try {
    await navigator.clipboard.writeText(pre.textContent);
    $('copy-status').textContent = 'Copied';
  } catch {
    // No clipboard (an insecure origin, or permission refused): select the text so Ctrl+C copies it.
    const range = document.createRange();
    range.selectNodeContents(pre);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
});

// ---- errors -----------------------------------------------------------------------------------------

/** The input a detail's path (e.g. "viewport.width", "margin.top") is about, if the form has one. */
function fieldFor(path) {
  const head = path.split('.')[0];
  const map = {
    url: els.url, html: els.html, device: els.device, fullPage: els.fullpage, quality: els.quality, colorScheme: els.dark,
    landscape: els.landscape, margin: els.margin, waitUntil: els.wait, delay: els.delay,
    format: outputOf() === 'pdf' ? els.paper : $('out-pdf'),
  };
  if (path === 'viewport.height') return els.vh;
  if (head === 'viewport') return els.vw;
  if (head === 'url' && sourceOf() === 'html') return els.html; // "give exactly one of url or html"
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

function clearFieldError(input) {
  const target = errorElementOf(input);
  const group = input.name === 'output' ? $('output') : input;
  group.removeAttribute('aria-invalid');
  if (!target) return;
  target.textContent = '';
  target.hidden = true;
}

function clearErrors() {
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  for (const p of form.querySelectorAll('.field-error')) { p.textContent = ''; p.hidden = true; }
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
  url: 'Page address', html: 'HTML', 'viewport.width': 'Viewport width', 'viewport.height': 'Viewport height', device: 'Device',
  fullPage: 'Full page', quality: 'JPG quality', colorScheme: 'Dark mode', format: 'Paper size', landscape: 'Landscape',
  waitUntil: 'Wait until', delay: 'Extra delay',
};
/** The explanation joins two sentences; the service's message starts in lower case and ends bare. */
function sentence(text) {
  const joined = String(text).replace(/([.!?] )([a-z])/g, (_, gap, letter) => gap + letter.toUpperCase());
  return /[.!?]$/.test(joined) ? joined : `${joined}.`;
}

const capitalized = (text) => String(text).charAt(0).toUpperCase() + String(text).slice(1);

const fieldName = (path) => FIELD_NAMES[path] ?? (path.startsWith('margin') ? 'Margins' : path || 'Request');

/** Shows an error in words: a title, the explanation from the error body, and each invalid field. */
function showError(err) {
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
    const details = err.details ?? [];
    // With field details the list says it all; otherwise the explanation and the body's message.
    words.textContent = err.code === 'invalid_request' && details.length
      ? 'Some fields are not valid; fix the highlighted ones:'
      : sentence(err.explanation) + (err.retryAfter ? ` Try again in ${err.retryAfter} s.` : '');
    box.append(title, words);
    if (details.length) {
      const list = document.createElement('ul');
      const seen = new Set();
      for (const { path, message } of details) {
        const line = `${fieldName(path)}: ${message}`;
        if (seen.has(line)) continue;
        seen.add(line);
        const li = document.createElement('li');
        li.textContent = `${fieldName(path)}: ${capitalized(message)}`;
        list.append(li);
        const input = fieldFor(path);
        if (input) setFieldError(input, capitalized(message));
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

function showProblems(problems) {
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

// ---- converting -------------------------------------------------------------------------------------

let busy = false;
let blobUrl = '';

function setBusy(on) {
  busy = on;
  const hadFocus = document.activeElement === els.convert;
  els.convert.disabled = on;
  els.convert.querySelector('.spinner').hidden = !on;
  els.convert.querySelector('.label').textContent = on ? 'Converting…' : 'Convert';
  // Busy is the result region only: on the form it would hold back the status and alert inside it.
  els.result.setAttribute('aria-busy', String(on));
  els.convert.setAttribute('aria-busy', String(on));
  // A disabled button loses the focus; give it back so the keyboard user stays where they were.
  if (!on && (hadFocus || document.activeElement === document.body || document.activeElement === null)) els.convert.focus();
}

function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

function metaItem(text, label) {
  const li = document.createElement('li');
  if (label) {
    const span = document.createElement('span');
    span.className = 'sr-only';
    span.textContent = `${label}: `;
    li.append(span);
  }
  li.append(text);
  return li;
}

/** What the preview is a picture of, for the image's alt text. */
function describeSource(body) {
  return body.url ? `the page at ${body.url}` : 'the HTML';
}

function showResult(request, res, blob) {
  if (blobUrl) URL.revokeObjectURL(blobUrl);
  blobUrl = URL.createObjectURL(blob);
  const { output, filename, body } = request;
  const preview = $('preview');
  preview.className = `preview ${output === 'pdf' ? 'pdf' : 'image'}`;
  const meta = [metaItem(TYPE_NAME[output], 'Type'), metaItem(formatBytes(blob.size), 'Size')];
  const renderMs = res.headers.get('x-render-ms');
  if (renderMs) meta.push(metaItem(`rendered in ${Number(renderMs).toLocaleString('en')} ms`));
  if (output === 'pdf') {
    const fallback = document.createElement('p');
    fallback.className = 'no-viewer';
    fallback.textContent = 'This browser does not show PDFs inside a page (most phones don\'t): use Download to open it.';
    if (navigator.pdfViewerEnabled === false) {
      preview.replaceChildren(fallback);
    } else {
      const object = document.createElement('object');
      object.type = 'application/pdf';
      // The viewer's own parameters: no thumbnail pane, the page fitted to the frame's width.
      object.data = `${blobUrl}#navpanes=0&view=FitH`;
      object.title = 'PDF preview';
      object.setAttribute('aria-label', `Preview of the PDF of ${describeSource(body)}`);
      object.append(fallback);
      preview.replaceChildren(object);
    }
    preview.removeAttribute('tabindex');
    preview.removeAttribute('role');
    preview.removeAttribute('aria-label');
    const pages = res.headers.get('x-page-count');
    if (pages) meta.push(metaItem(`${pages} page${pages === '1' ? '' : 's'}`));
  } else {
    const img = document.createElement('img');
    img.alt = `${TYPE_NAME[output]} rendering of ${describeSource(body)}`;
    const dims = metaItem('', 'Dimensions');
    meta.push(dims);
    img.addEventListener('load', () => { dims.append(`${img.naturalWidth} × ${img.naturalHeight} px`); }, { once: true });
    img.src = blobUrl;
    preview.replaceChildren(img);
    // A tall capture scrolls inside its box: make that box reachable by keyboard.
    preview.tabIndex = 0;
    preview.setAttribute('role', 'region');
    preview.setAttribute('aria-label', 'Image preview (scrollable)');
  }
  $('meta').replaceChildren(...meta);
  const download = $('download');
  download.href = blobUrl;
  download.download = filename;
  download.textContent = `Download ${filename}`;
  $('truncated').hidden = res.headers.get('x-truncated') !== 'full-page';
  $('result-empty').hidden = true;
  $('result-body').hidden = false;
}

async function convert() {
  clearErrors();
  const request = buildRequest();
  if (request.problems.length) {
    els.status.textContent = '';
    showProblems(request.problems);
    return;
  }
  showCurl(request);
  setBusy(true);
  els.status.textContent = 'Rendering…';
  try {
    const res = await api('POST', request.endpoint, { key: els.key.value.trim(), body: request.body });
    const blob = await res.blob();
    showResult(request, res, blob);
    const ms = res.headers.get('x-render-ms');
    els.status.textContent = `Done: ${TYPE_NAME[request.output]}, ${formatBytes(blob.size)}${ms ? `, rendered in ${ms} ms` : ''}.`;
    // On a phone the result is below the form: bring it into view.
    const box = els.result.getBoundingClientRect();
    if (box.top > innerHeight || box.bottom < 0) els.result.scrollIntoView({ block: 'start', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
  } catch (err) {
    els.status.textContent = '';
    showError(err);
    const invalid = err instanceof ApiError && err.code === 'invalid_request' && form.querySelector('[aria-invalid="true"]:not([hidden])');
    setBusy(false);
    if (invalid && invalid.offsetParent !== null) invalid.focus?.();
    return;
  }
  setBusy(false);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!busy) void convert();
});
