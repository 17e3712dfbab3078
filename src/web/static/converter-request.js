// The request from the form: the body for POST /api/pdf or /api/image (only what differs from the API's
// defaults) and the problems the browser can tell before sending. converter-curl.js writes it as curl.
import { els, outputOf, sourceOf } from '/assets/converter-form.js';

const DEFAULT_VIEWPORT = { width: 1280, height: 800 };
const EXT = { pdf: 'pdf', png: 'png', jpg: 'jpg' };

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
/**
 * The chosen files, each with its path in the upload: a folder's files lose the folder's own name
 * ("site/css/a.css" → "css/a.css"), so its index.html is at the top.
 */
function uploadedFiles() {
  const fromFolder = els.folder.files.length > 0;
  const chosen = [...(fromFolder ? els.folder.files : els.files.files)];
  return chosen.map((file) => ({
    path: fromFolder ? file.webkitRelativePath.split('/').slice(1).join('/') : file.name,
    file,
  }));
}

export function buildRequest() {
  const problems = [];
  const output = outputOf();
  const body = {};
  let files;
  if (sourceOf() === 'files') {
    files = uploadedFiles();
    if (!files.some((f) => f.path === 'index.html'))
      problems.push([els.files, 'Choose an index.html, with the files it uses (or their folder).']);
  } else if (sourceOf() === 'url') {
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
    body,
    files,
    output,
    filename: `result.${EXT[output]}`,
    problems,
  };
}
