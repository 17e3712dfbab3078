// The secrets among a monitor's capture options — header values, cookie values, the Basic-auth password, the values
// of `secret` fill steps and the request body of a POST or PUT — as they are kept and shown. At rest they are sealed by the SecretBox (bound to the monitor's
// id); in answers they read "••••"; a "••••" sent back stands for the value already kept.
// The service seals at the store boundary, the view masks, the capture job opens them to render.
import type { Cookie, Step } from '../domain/monitor-settings.js';
import { invalidRequest, renderFailed, type ErrorDetail } from '../errors.js';
import { canonicalJson } from '../jobs/queue.js';
import { isSealed, SecretBoxError, type SecretBox } from '../secrets/secret-box.js';
import type { MovedSecrets } from './secret-binding.js';

/** What a secret looks like in an answer; sent back, it means "keep what is stored". */
export const MASK = '••••';

/** The secret-bearing capture options. */
interface SecretFields {
  headers?: Record<string, string>;
  cookies?: Cookie[];
  httpCredentials?: { username: string; password: string };
  /** Only a step with `secret: true` holds a secret (its value); the schema allows that on fill steps only. */
  steps?: Step[];
  /** POST and PUT: the request body, sent to the url's origin only (it may hold a token or a search). */
  body?: string;
}

/** A copy with `f` applied to every secret value; names, usernames and cookie attributes stay. */
function mapSecrets<T extends SecretFields>(capture: T, f: (value: string) => string): T {
  const out = { ...capture };
  if (capture.headers)
    out.headers = Object.fromEntries(Object.entries(capture.headers).map(([name, value]) => [name, f(value)]));
  if (capture.cookies) out.cookies = capture.cookies.map((c) => ({ ...c, value: f(c.value) }));
  if (capture.httpCredentials)
    out.httpCredentials = { ...capture.httpCredentials, password: f(capture.httpCredentials.password) };
  if (capture.steps)
    out.steps = capture.steps.map((step) => (isSecretStep(step) ? { ...step, value: f(step.value) } : step));
  if (capture.body !== undefined) out.body = f(capture.body);
  return out;
}

function secretValues(capture: SecretFields): string[] {
  const values: string[] = [];
  mapSecrets(capture, (value) => (values.push(value), value));
  return values;
}

export function maskSecrets<T extends SecretFields>(capture: T): T {
  return mapSecrets(capture, () => MASK);
}

/**
 * The submitted options with every secret sealed. A "••••" keeps the stored sealed value it stands
 * for: a header's by name (case-insensitively, as HTTP reads names), the password whatever the
 * username, a cookie's by name + domain + path + url + flags (an array is replaced whole by a Merge Patch,
 * so a cookie is known by what identifies it to a browser). A "••••" with nothing to stand for is 400,
 * and so is one whose stored value would now go somewhere else (`moved`, see secret-binding.ts).
 */
export function sealSecrets<T extends SecretFields>(
  submitted: T,
  stored: SecretFields | undefined,
  box: SecretBox,
  monitorId: string,
  moved: MovedSecrets = {},
): T {
  const problems: ErrorDetail[] = [];
  const seal = (value: string, kept: string | undefined, path: string, movedBecause?: string, notKept?: string) => {
    if (value !== MASK) return box.encrypt(value, monitorId);
    if (kept !== undefined && movedBecause === undefined) return kept;
    problems.push({
      path,
      message:
        movedBecause ??
        notKept ??
        `"${MASK}" stands for a value already stored, and none is stored here: send the real value`,
    });
    return value;
  };
  const out = { ...submitted };
  if (submitted.headers) {
    out.headers = Object.fromEntries(
      Object.entries(submitted.headers).map(([name, value]) => [
        name,
        seal(value, storedHeader(stored, name), `capture.headers.${name}`, moved.headers),
      ]),
    );
  }
  if (submitted.cookies) {
    // A cookie with neither domain nor url is set for the page's url, so it follows the page's origin.
    out.cookies = submitted.cookies.map((c, i) => ({
      ...c,
      value: seal(
        c.value,
        storedCookie(stored, c)?.value,
        `capture.cookies.${i}.value`,
        moved.cookies ?? (c.domain || c.url ? undefined : moved.origin),
      ),
    }));
  }
  if (submitted.httpCredentials) {
    const { password } = submitted.httpCredentials;
    out.httpCredentials = {
      ...submitted.httpCredentials,
      password: seal(password, stored?.httpCredentials?.password, 'capture.httpCredentials.password', moved.origin),
    };
  }
  if (submitted.steps) {
    out.steps = submitted.steps.map((step, i) => {
      const path = `capture.steps.${i}.value`;
      if (isSecretStep(step))
        return {
          ...step,
          value: seal(step.value, storedStepSecret(stored, submitted.steps!, i), path, moved.steps, STEP_NOT_KEPT),
        };
      // A mask typed in the clear would be typed into the page as is: the caller meant the secret kept.
      if (step.value === MASK && step.action === 'fill')
        problems.push({ path, message: `"${MASK}" only stands for a stored value in a step with secret: true` });
      return step;
    });
  }
  if (submitted.body !== undefined) out.body = seal(submitted.body, stored?.body, 'capture.body', moved.origin);
  if (problems.length)
    throw invalidRequest(
      `the request has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}`,
      problems,
    );
  return out;
}

/** Every secret in the clear, to render with; a value that does not open fails the capture for good. */
export function openSecrets<T extends SecretFields>(capture: T, box: SecretBox, monitorId: string): T {
  try {
    return mapSecrets(capture, (value) => box.decrypt(value, monitorId));
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw renderFailed(
      `the monitor's secrets (capture headers, cookies, httpCredentials.password, secret step values, body) cannot ` +
        `be decrypted: ${err.message}. ` +
        'Start the service with the secrets key they were sealed with (secrets.key or dataDir/secret.key), or ' +
        'send the values again with PATCH',
      err,
    );
  }
}

/** Whether options stored before encryption existed still hold plaintext. */
export function hasPlaintextSecrets(capture: SecretFields): boolean {
  return secretValues(capture).some((value) => !isSealed(value));
}

/** Seals what is still plaintext, leaves sealed values as they are (so running it twice changes nothing). */
export function sealPlaintextSecrets<T extends SecretFields>(capture: T, box: SecretBox, monitorId: string): T {
  return mapSecrets(capture, (value) => (isSealed(value) ? value : box.encrypt(value, monitorId)));
}

/**
 * Whether what is captured differs. Sealed values differ on every sealing (a random IV), so the clear
 * values are compared; if they cannot be opened (another key), any resealed secret counts as a change.
 */
export function sameCapture(a: SecretFields, b: SecretFields, box: SecretBox, monitorId: string): boolean {
  try {
    return canonicalJson(openSecrets(a, box, monitorId)) === canonicalJson(openSecrets(b, box, monitorId));
  } catch {
    return canonicalJson(a) === canonicalJson(b);
  }
}

function storedHeader(stored: SecretFields | undefined, name: string): string | undefined {
  const headers = stored?.headers ?? {};
  if (Object.hasOwn(headers, name)) return headers[name];
  const match = Object.keys(headers).find((h) => h.toLowerCase() === name.toLowerCase());
  return match === undefined ? undefined : headers[match];
}

function storedCookie(stored: SecretFields | undefined, cookie: Cookie): Cookie | undefined {
  // The flags belong to the identity: a "••••" must not loosen a stored cookie (httpOnly off lets page
  // code read it, secure off sends it over plain http).
  const identity = (c: Cookie) =>
    canonicalJson([
      c.name,
      c.domain ?? null,
      c.path ?? null,
      c.url ?? null,
      c.httpOnly ?? null,
      c.secure ?? null,
      c.sameSite ?? null,
    ]);
  return stored?.cookies?.find((c) => identity(c) === identity(cookie));
}

function isSecretStep(step: Step): step is Step & { value: string } {
  return step.secret === true && step.value !== undefined;
}

const STEP_NOT_KEPT =
  `"${MASK}" keeps the value stored for a secret step only while every step is unchanged ` +
  '(the same actions, selectors and values, in the same order): send the real value';

/**
 * The sealed value a "••••" in step `i` stands for: the stored step at the same index, if it is a
 * secret fill of the same selector and origin, and every other step is the same (action, selector,
 * value, secret flag, origin; a secret by its sealed place, not its value). Steps before it decide which
 * page the secret is typed into (a new goto or click could lead it to a page of someone else's choosing);
 * steps after it can show it (a "show password" toggle before the capture) or carry it away.
 */
function storedStepSecret(stored: SecretFields | undefined, submitted: Step[], i: number): string | undefined {
  const before = stored?.steps ?? [];
  const kept = before[i];
  const now = submitted[i]!;
  if (
    !kept ||
    !isSecretStep(kept) ||
    kept.action !== now.action ||
    kept.selector !== now.selector ||
    kept.origin !== now.origin
  )
    return undefined;
  const shape = (s: Step) =>
    canonicalJson([
      s.action,
      s.selector ?? null,
      s.secret === true ? null : (s.value ?? null),
      s.secret === true,
      s.origin ?? null,
    ]);
  if (before.length !== submitted.length) return undefined;
  for (let j = 0; j < before.length; j++) if (j !== i && shape(before[j]!) !== shape(submitted[j]!)) return undefined;
  return kept.value;
}
