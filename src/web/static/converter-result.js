// The result of a conversion: the image inline or the PDF embedded (from a blob: URL, revoked when the
// next result replaces it), its facts, and the download link.
import { $ } from '/assets/converter-form.js';

export const TYPE_NAME = { pdf: 'PDF', png: 'PNG', jpg: 'JPG' };

let blobUrl = '';

export function formatBytes(n) {
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

export function showResult(request, res, blob) {
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
    fallback.textContent =
      "This browser does not show PDFs inside a page (most phones don't): use Download to open it.";
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
    img.addEventListener(
      'load',
      () => {
        dims.append(`${img.naturalWidth} × ${img.naturalHeight} px`);
      },
      { once: true },
    );
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
  $('truncated').hidden = !res.headers.get('x-truncated'); // full-page, width, height, or "width, height"
  showDiagnosis(res);
  $('result-empty').hidden = true;
  $('result-body').hidden = false;
}

/** The counts of the answer's X-Render-* headers, said as a person would, with where the lists are. */
const DIAGNOSIS = [
  ['x-render-failed-resources', 'resource failed to load', 'resources failed to load'],
  ['x-render-console-errors', 'console error', 'console errors'],
  ['x-render-exceptions', 'uncaught exception', 'uncaught exceptions'],
  ['x-render-missing-glyphs', 'character no font could draw', 'characters no font could draw'],
];

/**
 * What the page reported while it rendered, beside the result: the counts the binary answer carries in its
 * headers (the result stays the plain answer its curl command gives). Nothing reported: nothing shown.
 */
function showDiagnosis(res) {
  const box = $('diagnosis');
  const said = DIAGNOSIS.flatMap(([header, one, many]) => {
    const n = Number(res.headers.get(header) ?? 0);
    return n > 0 ? [`${n.toLocaleString('en')} ${n === 1 ? one : many}`] : [];
  });
  if (said.length === 0) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const docs = document.createElement('a');
  docs.href = '/docs#diagnostics';
  docs.textContent = 'lists each one';
  box.replaceChildren(
    `While it rendered, the page reported: ${said.join(', ')}. The answer with "response": "json" `,
    docs,
    ' (the URL, the status or error, the message).',
  );
  box.hidden = false;
}

/** A failed conversion: the last result goes, so the page never shows it beside the error as if it were this one's. */
export function clearResult() {
  if (blobUrl) URL.revokeObjectURL(blobUrl);
  blobUrl = '';
  $('preview').replaceChildren();
  $('meta').replaceChildren();
  $('diagnosis').replaceChildren();
  $('diagnosis').hidden = true;
  $('download').href = '#';
  $('result-body').hidden = true;
  $('result-empty').hidden = false;
}
