// The form's "Advanced" part: every capture and diff option the API takes that the main form does not
// show (hideSelectors, waits, the browser, requests and their secrets, includeAA; the ignore regions are
// monitors-form-regions.js). Filled from a monitor, read back into the body, and summed up in a line
// that is visible even with the part closed, so a monitor's settings never hide in it.
import { $ } from '/assets/monitors-util.js';
import { readRegions, setRegions } from '/assets/monitors-form-regions.js';
import { DEFAULTS, summarize } from '/assets/monitors-form-summary.js';

/** Where each of these options shows the API's problem: API path → [control id, error id]. */
export const ADVANCED_FIELDS = {
  'capture.hideSelectors': ['f-a-hide', 'f-a-hide-error'],
  'capture.selector': ['f-a-selector', 'f-a-selector-error'],
  'capture.clip.x': ['f-a-clip-x', 'f-a-clip-error'],
  'capture.clip.y': ['f-a-clip-y', 'f-a-clip-error'],
  'capture.clip.width': ['f-a-clip-w', 'f-a-clip-error'],
  'capture.clip.height': ['f-a-clip-h', 'f-a-clip-error'],
  'capture.clip': ['f-a-clip-x', 'f-a-clip-error'],
  'capture.css': ['f-a-css', 'f-a-css-error'],
  'capture.js': ['f-a-js', 'f-a-js-error'],
  'capture.delay': ['f-a-delay', 'f-a-delay-error'],
  'capture.waitForSelector': ['f-a-waitsel', 'f-a-waitsel-error'],
  'capture.waitForFunction': ['f-a-waitfn', 'f-a-waitfn-error'],
  'capture.timeout': ['f-a-timeout', 'f-a-timeout-error'],
  'capture.device': ['f-a-device', 'f-a-device-error'],
  'capture.deviceScaleFactor': ['f-a-scale', 'f-a-scale-error'],
  'capture.userAgent': ['f-a-ua', 'f-a-ua-error'],
  'capture.locale': ['f-a-locale', 'f-a-locale-error'],
  'capture.timezoneId': ['f-a-tz', 'f-a-tz-error'],
  'capture.blockResources': ['f-a-block-image', 'f-a-block-error'],
  'capture.headers': ['f-a-headers', 'f-a-headers-error'],
  'capture.cookies': ['f-a-cookies', 'f-a-cookies-error'],
  'capture.httpCredentials': ['f-a-user', 'f-a-auth-error'],
  'diff.includeAA': ['f-a-includeaa', 'f-a-includeaa-error'],
};

const blockBoxes = () => [...document.querySelectorAll('#f-a-block input[name="block"]')];
for (const box of blockBoxes()) box.id = `f-a-block-${box.value}`;

/** Where a value stood in the monitor's list (those it did not have go last). */
const inOrder = (list, value) => (list ?? []).indexOf(value) + 1 || Infinity;

const shown = (value, name) => (value === undefined || value === DEFAULTS[name] ? '' : String(value));

/** Fills the part from a monitor (null: a new one), opens it when anything in it is set, and sums it up. */
export function setAdvanced(m) {
  const c = m?.capture ?? {};
  $('f-a-hide').value = (c.hideSelectors ?? []).join('\n');
  $('f-a-selector').value = c.selector ?? '';
  $('f-a-clip-x').value = c.clip?.x ?? '';
  $('f-a-clip-y').value = c.clip?.y ?? '';
  $('f-a-clip-w').value = c.clip?.width ?? '';
  $('f-a-clip-h').value = c.clip?.height ?? '';
  $('f-a-css').value = c.css ?? '';
  $('f-a-js').value = c.js ?? '';
  $('f-a-animations').value = c.animations ?? DEFAULTS.animations;
  $('f-a-caret').value = c.caret ?? DEFAULTS.caret;
  $('f-a-omitbg').checked = c.omitBackground ?? false;
  $('f-a-scroll').checked = c.scrollPage ?? false;
  $('f-a-waituntil').value = c.waitUntil ?? DEFAULTS.waitUntil;
  $('f-a-delay').value = shown(c.delay, 'delay');
  $('f-a-timeout').value = shown(c.timeout, 'timeout');
  $('f-a-waitsel').value = c.waitForSelector ?? '';
  $('f-a-waitfn').value = c.waitForFunction ?? '';
  $('f-a-failhttp').value = c.failOnHttpError === undefined ? '' : String(c.failOnHttpError);
  $('f-a-device').value = c.device ?? '';
  $('f-a-scale').value = c.deviceScaleFactor ?? '';
  $('f-a-ua').value = c.userAgent ?? '';
  $('f-a-locale').value = c.locale ?? '';
  $('f-a-tz').value = c.timezoneId ?? '';
  $('f-a-scheme').value = c.colorScheme ?? DEFAULTS.colorScheme;
  $('f-a-motion').value = c.reducedMotion ?? DEFAULTS.reducedMotion;
  $('f-a-media').value = c.media ?? '';
  $('f-a-js-on').checked = c.javaScriptEnabled ?? true;
  for (const box of blockBoxes()) box.checked = (c.blockResources ?? []).includes(box.value);
  $('f-a-headers').value = Object.entries(c.headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  $('f-a-hscope').value = c.headersScope ?? DEFAULTS.headersScope;
  // One cookie a line: the array stays valid JSON and each cookie reads on its own.
  $('f-a-cookies').value = c.cookies?.length
    ? `[\n${c.cookies.map((cookie) => `  ${JSON.stringify(cookie)}`).join(',\n')}\n]`
    : '';
  $('f-a-user').value = c.httpCredentials?.username ?? '';
  $('f-a-pass').value = c.httpCredentials?.password ?? '';
  $('f-a-includeaa').checked = m?.diff?.includeAA ?? false;
  // Each list shows whole, up to a point: a set value must not hide below the fold of its box.
  for (const id of ['f-a-hide', 'f-a-css', 'f-a-js', 'f-a-headers', 'f-a-cookies'])
    $(id).rows = Math.min(
      8,
      Math.max(
        2,
        $(id)
          .value.split('\n')
          .reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / 50)), 0),
      ),
    );
  setRegions(m);
  const set = summarize();
  $('f-advanced').open = set.length > 0;
}

const lines = (id) =>
  $(id)
    .value.split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** "Name: value" lines → a header record; a line without a colon is a problem. */
function readHeaders(problems) {
  const headers = {};
  for (const line of lines('f-a-headers')) {
    const colon = line.indexOf(':');
    if (colon < 1) {
      problems.push({ path: 'capture.headers', message: `Write each header as “Name: value”; “${line}” is not.` });
      continue;
    }
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return Object.keys(headers).length ? headers : null;
}

/**
 * headers is an object, so a Merge Patch merges it name by name: on edit, a header no longer listed is
 * sent as null to be removed. No header left: the whole member is removed (or left out on create).
 */
function headersPatch(headers, had, empty) {
  if (!headers) return empty;
  if (empty === undefined || !had) return headers;
  const removed = Object.keys(had).filter((name) => !Object.hasOwn(headers, name));
  return { ...Object.fromEntries(removed.map((name) => [name, null])), ...headers };
}

function readCookies(problems) {
  const text = $('f-a-cookies').value.trim();
  if (!text) return null;
  try {
    const cookies = JSON.parse(text);
    if (Array.isArray(cookies)) return cookies.length ? cookies : null;
  } catch {
    /* said below */
  }
  problems.push({
    path: 'capture.cookies',
    message: 'Write the cookies as a JSON array, e.g. [{"name": "consent", "value": "yes"}], or leave it empty.',
  });
  return undefined;
}

/**
 * The part's members of capture and diff. `empty` is what an unset option becomes (undefined on create:
 * left out; null on edit: removed, so the default applies). A list the monitor had, emptied, is sent as [].
 */
export function readAdvanced(empty, original) {
  const problems = [];
  const text = (id) => $(id).value.trim() || empty;
  const raw = (id) => $(id).value || empty; // css, js: kept as typed
  const num = (id) => {
    const v = $(id).value.trim();
    if (v === '') return empty;
    const n = Number(v);
    return Number.isFinite(n) ? n : v;
  };
  const list = (values, had) => (values.length ? values : had !== undefined ? [] : empty);
  const oc = original?.capture ?? {};
  const clipParts = { x: num('f-a-clip-x'), y: num('f-a-clip-y'), width: num('f-a-clip-w'), height: num('f-a-clip-h') };
  const clipSet = Object.values(clipParts).some((v) => v !== empty);
  const user = $('f-a-user').value;
  const pass = $('f-a-pass').value;
  // In the order the monitor had them: an unchanged form sends the list unchanged.
  const blocked = blockBoxes()
    .filter((box) => box.checked)
    .map((box) => box.value)
    .sort((a, b) => inOrder(oc.blockResources, a) - inOrder(oc.blockResources, b));
  const failHttp = $('f-a-failhttp').value;
  const capture = {
    hideSelectors: list(lines('f-a-hide'), oc.hideSelectors),
    selector: text('f-a-selector'),
    // Sent whole (an emptied side as null, so a Merge Patch does not keep the old one and the API names it).
    clip: clipSet ? Object.fromEntries(Object.entries(clipParts).map(([k, v]) => [k, v ?? null])) : empty,
    css: raw('f-a-css'),
    js: raw('f-a-js'),
    animations: $('f-a-animations').value,
    caret: $('f-a-caret').value,
    omitBackground: $('f-a-omitbg').checked,
    scrollPage: $('f-a-scroll').checked,
    waitUntil: $('f-a-waituntil').value,
    delay: num('f-a-delay'),
    timeout: num('f-a-timeout'),
    waitForSelector: text('f-a-waitsel'),
    waitForFunction: text('f-a-waitfn'),
    failOnHttpError: failHttp === '' ? empty : failHttp === 'true',
    device: text('f-a-device'),
    deviceScaleFactor: num('f-a-scale'),
    userAgent: text('f-a-ua'),
    locale: text('f-a-locale'),
    timezoneId: text('f-a-tz'),
    colorScheme: $('f-a-scheme').value,
    reducedMotion: $('f-a-motion').value,
    media: $('f-a-media').value || empty,
    javaScriptEnabled: $('f-a-js-on').checked,
    blockResources: list(blocked, oc.blockResources),
    headers: headersPatch(readHeaders(problems), oc.headers, empty),
    headersScope: $('f-a-hscope').value,
    cookies: readCookies(problems) ?? (oc.cookies !== undefined ? [] : empty),
    httpCredentials: user || pass ? { username: user, password: pass } : empty,
  };
  const diff = { includeAA: $('f-a-includeaa').checked, ignoreRegions: readRegions() };
  return { capture, diff, problems };
}
