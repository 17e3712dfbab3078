// "The same with curl", under the result: always the request behind what the result area shows (the
// result, or the error it ended in). A canceled request never replaces it, since its result never came.
// HTML can be read from a file instead of being quoted on one long line: page.html, offered for download.
// With nothing but the endpoint's defaults that is the raw-HTML shortcut (`--data-binary @page.html`);
// with options, jq wraps the file's text into the JSON body and curl reads that from its standard input.
import { $, els } from '/assets/converter-form.js';

/** The format each endpoint uses when none is given: a body with only html and this needs no JSON. */
const DEFAULT_FORMAT = { '/api/pdf': 'A4', '/api/image': 'png' };
export const HTML_FILE = 'page.html';

/** Quotes a word for a POSIX shell: single quotes, each inner ' written as '\''. */
export function shellQuote(text) {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}

const authHeader = (withKey) => (withKey ? ['-H "Authorization: Bearer $PAGEWATCH_KEY"'] : []);
const continued = (lines) => lines.join(' \\\n  ');

/** An upload as curl -F sends it: each file by its path, the options as one JSON part. */
export function curlUpload({ endpoint, body, files, filename }, origin, withKey) {
  return continued([
    `curl -X POST ${shellQuote(origin + endpoint)}`,
    ...authHeader(withKey),
    ...files.map(({ path }) => `-F ${shellQuote(`files=@${path};filename=${path}`)}`),
    `-F ${shellQuote(`options=${JSON.stringify(body)};type=application/json`)}`,
    `-o ${filename}`,
  ]);
}

/** The curl command with the whole body inline; the key is only ever referred to as $PAGEWATCH_KEY. */
export function curlCommand(request, origin, withKey) {
  const { endpoint, body, filename } = request;
  if (request.files) return curlUpload(request, origin, withKey);
  return continued([
    `curl -X POST ${shellQuote(origin + endpoint)}`,
    `-H 'content-type: application/json'`,
    ...authHeader(withKey),
    `--data-raw ${shellQuote(JSON.stringify(body))}`,
    `-o ${filename}`,
  ]);
}

function onlyDefaults(endpoint, body) {
  return Object.keys(body).every((k) => k === 'html' || (k === 'format' && body.format === DEFAULT_FORMAT[endpoint]));
}

/** The curl command that reads the HTML from page.html (see the file's head for the two forms). */
export function curlFromFile({ endpoint, body, filename }, origin, withKey) {
  const tail = [...authHeader(withKey), `-o ${filename}`];
  if (onlyDefaults(endpoint, body))
    return continued([
      `curl -X POST ${shellQuote(origin + endpoint)}`,
      `-H 'content-type: text/html'`,
      `--data-binary @${HTML_FILE}`,
      ...tail,
    ]);
  const options = { ...body };
  delete options.html;
  // -R -s: the whole file as one JSON string (jq escapes it); the options are given as JSON, unchanged.
  const jq = `jq -Rs --argjson options ${shellQuote(JSON.stringify(options))} '{html: .} + $options' ${HTML_FILE} |`;
  return `${jq}\n${continued([
    `curl -X POST ${shellQuote(origin + endpoint)}`,
    `-H 'content-type: application/json'`,
    `--data-binary @-`,
    ...tail,
  ])}`;
}

let shown = null;
let fileUrl = '';

function render() {
  if (!shown) return;
  const { withKey } = shown;
  const html = typeof shown.body.html === 'string';
  const fromFile = html && $('curl-html-file').checked;
  const pre = $('curl');
  pre.textContent = fromFile
    ? curlFromFile(shown, location.origin, withKey)
    : curlCommand(shown, location.origin, withKey);
  $('curl-variant').hidden = !html;
  const hint = $('curl-hint');
  hint.hidden = !fromFile;
  hint.textContent = fromFile
    ? onlyDefaults(shown.endpoint, shown.body)
      ? `Run it next to ${HTML_FILE}: with every default, the HTML is the whole body.`
      : `Run it next to ${HTML_FILE}; jq puts the file's HTML into the JSON with the options.`
    : '';
}

/** Shows the command for `request`: the one behind the result or error the page now shows. */
export function showCurl(request) {
  // Whether it was sent with a key is part of the request: switching the form later does not change it.
  shown = { ...request, withKey: Boolean(els.key.value.trim()) };
  if (fileUrl) URL.revokeObjectURL(fileUrl);
  fileUrl = '';
  const download = $('page-download');
  if (typeof request.body.html === 'string') {
    fileUrl = URL.createObjectURL(new Blob([request.body.html], { type: 'text/html;charset=utf-8' }));
    download.href = fileUrl;
  } else download.href = '#';
  const pre = $('curl');
  pre.dataset.endpoint = request.endpoint;
  pre.dataset.body = JSON.stringify(request.body);
  $('copy-status').textContent = '';
  $('curl-section').hidden = false;
  render();
}

for (const radio of document.querySelectorAll('input[name="curl-html"]'))
  radio.addEventListener('change', () => {
    $('copy-status').textContent = '';
    render();
  });

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
