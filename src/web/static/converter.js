// The public converter at `/`: builds a request for POST /api/pdf or /api/image from the form, shows the
// result (image inline, PDF embedded) with a download link, errors in words, and the same call as curl.
// This file wires the page; the parts are in converter-form.js (the form's elements), converter-request.js
// (the request body), converter-curl.js (the same as curl), converter-errors.js, converter-result.js and
// converter-reveal.js (bringing a result or an error into view).
import { api, ApiError, storedKey, storeKey } from '/assets/api.js';
import { clearErrors, clearFieldError, showError, showProblems } from '/assets/converter-errors.js';
import { $, els, form, outputOf, sourceOf } from '/assets/converter-form.js';
import { showCurl } from '/assets/converter-curl.js';
import { buildRequest } from '/assets/converter-request.js';
import { clearResult, formatBytes, showResult, TYPE_NAME } from '/assets/converter-result.js';
import { reveal } from '/assets/converter-reveal.js';

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

// ---- the form's state -------------------------------------------------------------------------------

/** Shows the source's panel and only the options that apply to the chosen output. */
function syncForm() {
  const source = sourceOf();
  $('panel-url').hidden = source !== 'url';
  $('panel-html').hidden = source !== 'html';
  $('panel-files').hidden = source !== 'files';
  const output = outputOf();
  for (const el of form.querySelectorAll('[data-for]')) {
    const want = el.dataset.for;
    el.hidden = !(want === output || (want === 'image' && output !== 'pdf'));
  }
  // A device brings its own viewport.
  for (const el of form.querySelectorAll('.viewport-opt')) el.hidden = els.device.value !== '';
}

for (const radio of form.querySelectorAll('input[name="source"], input[name="output"]'))
  radio.addEventListener('change', syncForm);
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
els.key.addEventListener('change', () => {
  storeKey(els.key.value.trim());
  syncKey();
});
$('forget-key').addEventListener('click', () => {
  els.key.value = '';
  storeKey('');
  syncKey();
  els.key.focus();
});
syncKey();
syncForm();

// ---- converting -------------------------------------------------------------------------------------

let busy = false;
/** Aborts the conversion in flight (the service stops its render when the request goes away). */
let inFlight = null;

function setBusy(on) {
  busy = on;
  const hadFocus = document.activeElement === els.convert || document.activeElement === els.cancel;
  els.convert.disabled = on;
  els.convert.querySelector('.spinner').hidden = !on;
  els.convert.querySelector('.label').textContent = on ? 'Converting…' : 'Convert';
  els.cancel.hidden = !on;
  // Busy is the result region only: on the form it would hold back the status inside it. While busy the
  // previous result stays, dimmed (converter.css) and said to be the previous one, until it is replaced.
  els.result.setAttribute('aria-busy', String(on));
  $('result-stale').hidden = !on || $('result-body').hidden;
  // ...and inert: it is not the answer to what was just asked, so it is neither clicked nor read out as one.
  for (const part of [$('result-body'), $('curl-section')]) part.inert = on;
  els.convert.setAttribute('aria-busy', String(on));
  // A disabled button loses the focus; give it back so the keyboard user stays where they were.
  if (!on && (hadFocus || document.activeElement === document.body || document.activeElement === null))
    els.convert.focus();
}

/** An upload as multipart/form-data: the options as one JSON part, each file under its path. */
function uploadBody({ body, files }) {
  const data = new FormData();
  data.append('options', JSON.stringify(body));
  for (const { path, file } of files) data.append('files', file, path);
  return data;
}

async function convert() {
  clearErrors();
  const request = buildRequest();
  if (request.problems.length) {
    els.status.textContent = '';
    showProblems(request.problems);
    return;
  }
  inFlight = new AbortController();
  setBusy(true);
  els.status.textContent = 'Rendering…';
  try {
    const res = await api('POST', request.endpoint, {
      key: els.key.value.trim(),
      body: request.files ? uploadBody(request) : request.body,
      signal: inFlight.signal,
    });
    const blob = await res.blob();
    showResult(request, res, blob);
    showCurl(request);
    const ms = res.headers.get('x-render-ms');
    els.status.textContent = `Done: ${TYPE_NAME[request.output]}, ${formatBytes(blob.size)}${ms ? `, rendered in ${ms} ms` : ''}.`;
  } catch (err) {
    if (err.name === 'AbortError') {
      // Canceled by the user: the previous result (and its curl command), if any, is still the last one
      // that finished.
      els.status.textContent = 'Canceled.';
      setBusy(false);
      return;
    }
    els.status.textContent = '';
    clearResult();
    showCurl(request); // the failed request, to reproduce the error outside the browser
    showError(err);
    const invalid =
      err instanceof ApiError &&
      err.code === 'invalid_request' &&
      form.querySelector('[aria-invalid="true"]:not([hidden])');
    setBusy(false);
    // An invalid field is focused (its message is beside it); any other error is brought into view.
    if (invalid && invalid.offsetParent !== null) {
      invalid.focus?.();
      // The message under the field too, not only the field, clear of the sticky bar (scroll-padding).
      document.getElementById(`${invalid.id}-error`)?.scrollIntoView({ block: 'nearest' });
    } else reveal(els.error);
    return;
  }
  setBusy(false);
  reveal(els.result);
}

els.cancel.addEventListener('click', () => inFlight?.abort());

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!busy) void convert();
});
