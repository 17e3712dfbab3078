// The form's "Advanced" part: every capture and diff option the API takes that the main form does not
// show (hideSelectors, waits, the browser, requests and their secrets, includeAA; the ignore regions are
// regions.js). Filled from a monitor, read back into the body, and summed up in a line that is visible
// even with the part closed, so a monitor's settings never hide in it.
import { readRegions } from '/assets/monitors-form/regions.js';

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
  'capture.method': ['f-a-method', 'f-a-method-error'],
  'capture.body': ['f-a-body', 'f-a-body-error'],
  'capture.bodyContentType': ['f-a-ctype', 'f-a-ctype-error'],
};

const BLOCKABLE = ['image', 'media', 'font', 'stylesheet', 'script', 'xhr', 'fetch', 'websocket'];

/** Where a value stood in the monitor's list (those it did not have go last). */
const inOrder = (list, value) => (list ?? []).indexOf(value) + 1 || Infinity;

const shown = (value, name) => (value === undefined || value === DEFAULTS[name] ? '' : String(value));

/** The API's defaults of the options with one: a value equal to it is shown as the default (an empty field). */
export const DEFAULTS = {
  colorScheme: 'light',
  reducedMotion: 'reduce',
  javaScriptEnabled: true,
  waitUntil: 'load',
  delay: 0,
  timeout: 30_000,
  headersScope: 'origin',
  scrollPage: false,
  omitBackground: false,
  animations: 'disabled',
  caret: 'hide',
};

/** The part's fields from a monitor (null: a new one), by control id. */
export function advancedValues(m) {
  const c = m?.capture ?? {};
  return {
    'f-a-hide': (c.hideSelectors ?? []).join('\n'),
    'f-a-selector': c.selector ?? '',
    'f-a-clip-x': String(c.clip?.x ?? ''),
    'f-a-clip-y': String(c.clip?.y ?? ''),
    'f-a-clip-w': String(c.clip?.width ?? ''),
    'f-a-clip-h': String(c.clip?.height ?? ''),
    'f-a-css': c.css ?? '',
    'f-a-js': c.js ?? '',
    'f-a-animations': c.animations ?? DEFAULTS.animations,
    'f-a-caret': c.caret ?? DEFAULTS.caret,
    'f-a-omitbg': c.omitBackground ?? false,
    'f-a-scroll': c.scrollPage ?? false,
    'f-a-waituntil': c.waitUntil ?? DEFAULTS.waitUntil,
    'f-a-delay': shown(c.delay, 'delay'),
    'f-a-timeout': shown(c.timeout, 'timeout'),
    'f-a-waitsel': c.waitForSelector ?? '',
    'f-a-waitfn': c.waitForFunction ?? '',
    'f-a-failhttp': c.failOnHttpError === undefined ? '' : String(c.failOnHttpError),
    'f-a-device': c.device ?? '',
    'f-a-scale': String(c.deviceScaleFactor ?? ''),
    'f-a-ua': c.userAgent ?? '',
    'f-a-locale': c.locale ?? '',
    'f-a-tz': c.timezoneId ?? '',
    'f-a-scheme': c.colorScheme ?? DEFAULTS.colorScheme,
    'f-a-motion': c.reducedMotion ?? DEFAULTS.reducedMotion,
    'f-a-media': c.media ?? '',
    'f-a-js-on': c.javaScriptEnabled ?? true,
    ...Object.fromEntries(BLOCKABLE.map((type) => [`f-a-block-${type}`, (c.blockResources ?? []).includes(type)])),
    'f-a-headers': Object.entries(c.headers ?? {})
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
    'f-a-hscope': c.headersScope ?? DEFAULTS.headersScope,
    // One cookie a line: the array stays valid JSON and each cookie reads on its own.
    'f-a-cookies': c.cookies?.length
      ? `[\n${c.cookies.map((cookie) => `  ${JSON.stringify(cookie)}`).join(',\n')}\n]`
      : '',
    'f-a-user': c.httpCredentials?.username ?? '',
    'f-a-pass': c.httpCredentials?.password ?? '',
    'f-a-includeaa': m?.diff?.includeAA ?? false,
    'f-a-method': c.method ?? 'GET',
    // Write-only: a stored body reads "••••", and "••••" sent back keeps it.
    'f-a-body': c.body ?? '',
    'f-a-ctype': c.bodyContentType ?? '',
  };
}

/** Each list shows whole, up to a point: a set value must not hide below the fold of its box. */
export const rowsFor = (text) =>
  Math.min(
    8,
    Math.max(
      2,
      String(text)
        .split('\n')
        .reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / 50)), 0),
    ),
  );

/** "Name: value" lines → a header record; a line without a colon is a problem. */
function readHeaders(model, problems) {
  const headers = {};
  for (const line of model.lines('f-a-headers')) {
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

function readCookies(model, problems) {
  const text = model.text('f-a-cookies');
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
export function readAdvanced(model, empty, original) {
  const problems = [];
  const text = (id) => model.text(id) || empty;
  const raw = (id) => model.get(id) || empty; // css, js: kept as typed
  const num = (id) => {
    const v = model.text(id);
    if (v === '') return empty;
    const n = Number(v);
    return Number.isFinite(n) ? n : v;
  };
  const list = (values, had) => (values.length ? values : had !== undefined ? [] : empty);
  const oc = original?.capture ?? {};
  const clipParts = { x: num('f-a-clip-x'), y: num('f-a-clip-y'), width: num('f-a-clip-w'), height: num('f-a-clip-h') };
  const clipSet = Object.values(clipParts).some((v) => v !== empty);
  const user = model.get('f-a-user');
  const pass = model.get('f-a-pass');
  // In the order the monitor had them: an unchanged form sends the list unchanged.
  const blocked = BLOCKABLE.filter((type) => model.get(`f-a-block-${type}`)).sort(
    (a, b) => inOrder(oc.blockResources, a) - inOrder(oc.blockResources, b),
  );
  const failHttp = model.get('f-a-failhttp');
  const method = model.get('f-a-method') || 'GET';
  const capture = {
    hideSelectors: list(model.lines('f-a-hide'), oc.hideSelectors),
    selector: text('f-a-selector'),
    // Sent whole (an emptied side as null, so a Merge Patch does not keep the old one and the API names it).
    clip: clipSet ? Object.fromEntries(Object.entries(clipParts).map(([k, v]) => [k, v ?? null])) : empty,
    css: raw('f-a-css'),
    js: raw('f-a-js'),
    animations: model.get('f-a-animations'),
    caret: model.get('f-a-caret'),
    omitBackground: Boolean(model.get('f-a-omitbg')),
    scrollPage: Boolean(model.get('f-a-scroll')),
    waitUntil: model.get('f-a-waituntil'),
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
    colorScheme: model.get('f-a-scheme'),
    reducedMotion: model.get('f-a-motion'),
    media: model.get('f-a-media') || empty,
    javaScriptEnabled: Boolean(model.get('f-a-js-on')),
    blockResources: list(blocked, oc.blockResources),
    headers: headersPatch(readHeaders(model, problems), oc.headers, empty),
    headersScope: model.get('f-a-hscope'),
    cookies: readCookies(model, problems) ?? (oc.cookies !== undefined ? [] : empty),
    httpCredentials: user || pass ? { username: user, password: pass } : empty,
    // GET is the default: sent only when the monitor had a method; a GET takes no body (removed on edit).
    method: method === 'GET' && oc.method === undefined ? empty : method,
    body: method === 'GET' ? empty : raw('f-a-body'),
    bodyContentType: text('f-a-ctype'),
  };
  const diff = { includeAA: Boolean(model.get('f-a-includeaa')), ignoreRegions: readRegions(model) };
  return { capture, diff, problems };
}
/** The set options in a few words each, for the line above the part. */
export function summarize(model) {
  const set = [];
  const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const regions = model.regions.value.length;
  if (regions) set.push(count(regions, 'ignore region'));
  const hide = model.lines('f-a-hide').length;
  if (hide) set.push(`hide ${count(hide, 'element')}`);
  if (model.text('f-a-selector')) set.push('one element only');
  if (['f-a-clip-x', 'f-a-clip-y', 'f-a-clip-w', 'f-a-clip-h'].some((id) => model.text(id))) set.push('a clip');
  if (model.text('f-a-css')) set.push('extra CSS');
  if (model.text('f-a-js')) set.push('extra script');
  if (model.get('f-a-animations') !== DEFAULTS.animations) set.push('animations allowed');
  if (model.get('f-a-caret') !== DEFAULTS.caret) set.push('caret shown');
  if (model.get('f-a-omitbg')) set.push('transparent background');
  if (model.get('f-a-scroll')) set.push('scroll first');
  if (model.get('f-a-waituntil') !== DEFAULTS.waitUntil) set.push(`ready at ${model.get('f-a-waituntil')}`);
  const delay = model.text('f-a-delay');
  if (delay && Number(delay) !== 0) set.push(`wait ${delay} ms`);
  if (model.text('f-a-waitsel')) set.push(`wait for ${model.text('f-a-waitsel')}`);
  if (model.text('f-a-waitfn')) set.push('wait for a script');
  const timeout = model.text('f-a-timeout');
  if (timeout && Number(timeout) !== DEFAULTS.timeout) set.push(`time limit ${timeout} ms`);
  if (model.get('f-a-failhttp') === 'false') set.push('HTTP errors captured');
  if (model.get('f-a-failhttp') === 'true') set.push('HTTP errors fail');
  if (model.text('f-a-device')) set.push(`device ${model.text('f-a-device')}`);
  if (model.text('f-a-scale')) set.push(`pixel ratio ${model.text('f-a-scale')}`);
  if (model.text('f-a-ua')) set.push('user agent');
  if (model.text('f-a-locale')) set.push(`locale ${model.text('f-a-locale')}`);
  if (model.text('f-a-tz')) set.push(`page time zone ${model.text('f-a-tz')}`);
  if (model.get('f-a-scheme') !== DEFAULTS.colorScheme) set.push(`${model.get('f-a-scheme')} scheme`);
  if (model.get('f-a-motion') !== DEFAULTS.reducedMotion) set.push('motion not reduced');
  if (model.get('f-a-media')) set.push(`${model.get('f-a-media')} media`);
  if (!model.get('f-a-js-on')) set.push('JavaScript off');
  const blocked = BLOCKABLE.filter((type) => model.get(`f-a-block-${type}`)).length;
  if (blocked) set.push(`${count(blocked, 'resource type')} blocked`);
  const headers = model.lines('f-a-headers').length;
  if (headers) set.push(count(headers, 'header'));
  if (model.get('f-a-hscope') !== DEFAULTS.headersScope) set.push('headers to every request');
  if (model.text('f-a-cookies')) set.push('cookies');
  if (model.get('f-a-user') || model.get('f-a-pass')) set.push('basic auth');
  if (model.get('f-a-includeaa')) set.push('strict comparison');
  const method = model.get('f-a-method') || 'GET';
  if (method !== 'GET') set.push(`${method} request`);
  if (method !== 'GET' && model.get('f-a-body')) set.push('a request body');
  if (model.text('f-a-ctype')) set.push(`body type ${model.text('f-a-ctype')}`);
  return set;
}
