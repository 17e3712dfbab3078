// Where a monitor's stored secrets may go. Each was given for one destination: headers for the page's
// origin (or, with headersScope "all", for every host that page loads from), the Basic-auth password
// and a cookie without its own domain or url for the page's origin. A PATCH that sends them elsewhere
// — another origin in `url`, or headersScope widened from "origin" to "all" — must bring the values
// again: whoever holds the monitor's key only ever sees "••••", and must not be able to point the
// stored secrets at a host of their choosing. A cookie with its own domain or url is bound to that,
// which a "••••" cannot change (a cookie is only kept under the same name, domain, path, url and flags).
// Code the monitor adds to the page (`js`, `css`, `waitForFunction`) runs beside the secrets: new code
// could read every cookie the page has (document.cookie) and send it anywhere, or load from any host —
// which, with headersScope "all", carries the headers there. Changing it is a move too. A secret
// typed by a step (capture.steps) is bound to the page's origin and code the same way; which steps
// lead up to it is checked where it is sealed (capture-secrets.ts). A goto step to a new origin takes
// headers of scope "all" there: a move for them too.
import type { HeadersScope } from '../domain/render-spec.js';
import { canonicalJson } from '../jobs/queue.js';
import { originOf } from '../render/browser/origin-headers.js';

/** What the monitor adds to the page: code that runs where the secrets are used. */
const PAGE_CODE = ['js', 'css', 'waitForFunction'] as const;

/** Where the secrets go: the page's origin, the headers' scope, and the code added to the page. */
export interface SecretDestination {
  url: string;
  capture: {
    headersScope?: HeadersScope;
    js?: string;
    css?: string;
    waitForFunction?: string;
    /** A goto step takes the page to its url, and with headersScope "all" the headers go along. */
    steps?: { action: string; value?: string }[];
  };
}

/** Why a kept ("••••" or left out) secret of each kind may not be reused; absent = it may. */
export interface MovedSecrets {
  /** The password and cookies without domain/url: bound to the page's origin. */
  origin?: string;
  /** Header values: bound to the origin, and to headersScope "origin" when that is what they were given with. */
  headers?: string;
  /** Every cookie, bound to its own domain or not: the page's code changed, and code can read cookies. */
  cookies?: string;
  /** Secret step values: typed into the page's origin, where the page's code can read what is typed. */
  steps?: string;
}

const AGAIN = 'send the value again, or remove it';

export function movedSecrets(before: SecretDestination, after: SecretDestination): MovedSecrets {
  const from = originOf(before.url);
  const to = originOf(after.url);
  const moved: MovedSecrets = {};
  if (from !== to) {
    moved.origin =
      `the url moved from ${from} to ${to}, ` +
      `and a stored secret is only sent to the origin it was given for: ${AGAIN}`;
    moved.headers = moved.origin;
    moved.steps =
      `the url moved from ${from} to ${to}, ` +
      `and a stored secret step value is only typed into the page it was given for: ${AGAIN}`;
  } else if ((before.capture.headersScope ?? 'origin') === 'origin' && after.capture.headersScope === 'all') {
    moved.headers =
      `headersScope "all" would send this stored header to every host the page loads from, ` +
      `and it was given for ${from} only: ${AGAIN}`;
  }
  // New or changed code only: removing it takes nothing anywhere.
  const changed = PAGE_CODE.filter(
    (field) =>
      after.capture[field] !== undefined &&
      canonicalJson(before.capture[field] ?? null) !== canonicalJson(after.capture[field]),
  );
  if (changed.length > 0) {
    const what = changed.map((f) => `capture.${f}`).join(', ');
    moved.cookies =
      `${what} changed, ` + `and code added to the page can read a stored cookie and send it anywhere: ${AGAIN}`;
    moved.steps ??=
      `${what} changed, ` + `and code added to the page can read what a step types and send it anywhere: ${AGAIN}`;
    if (after.capture.headersScope === 'all') {
      moved.headers ??=
        `${what} changed, ` +
        `and with headersScope "all" the page's requests to any host carry this stored header: ${AGAIN}`;
    }
  }
  if (after.capture.headersScope === 'all') {
    const known = new Set([from, ...gotoOrigins(before)]);
    const added = [...gotoOrigins(after)].filter((origin) => !known.has(origin));
    if (added.length > 0) {
      moved.headers ??=
        `a goto step now leads to ${added.join(', ')}, and with headersScope "all" the page's requests there ` +
        `carry this stored header: ${AGAIN}`;
    }
  }
  return moved;
}

function gotoOrigins(destination: SecretDestination): string[] {
  return (destination.capture.steps ?? [])
    .filter((s) => s.action === 'goto' && s.value !== undefined)
    .map((s) => originOf(s.value!) ?? s.value!);
}
