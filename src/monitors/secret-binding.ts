// Where a monitor's stored secrets may go. Each was given for one destination: headers for the page's
// origin (or, with headersScope "all", for every host that page loads from), the Basic-auth password
// and a cookie without its own domain or url for the page's origin. A PATCH that sends them elsewhere
// — another origin in `url`, or headersScope widened from "origin" to "all" — must bring the values
// again: whoever holds the monitor's key only ever sees "••••", and must not be able to point the
// stored secrets at a host of their choosing. A cookie with its own domain or url is bound to that,
// which a "••••" cannot change (a cookie is only kept under the same name, domain, path and url).
import { originOf } from '../render/origin-headers.js';

/** Where the secrets go: the page's origin and the headers' scope. */
export interface SecretDestination { url: string; capture: { headersScope?: 'origin' | 'all' } }

/** Why a kept ("••••" or left out) secret of each kind may not be reused; absent = it may. */
export interface MovedSecrets {
  /** The password and cookies without domain/url: bound to the page's origin. */
  origin?: string;
  /** Header values: bound to the origin, and to headersScope "origin" when that is what they were given with. */
  headers?: string;
}

const AGAIN = 'send the value again, or remove it';

export function movedSecrets(before: SecretDestination, after: SecretDestination): MovedSecrets {
  const from = originOf(before.url);
  const to = originOf(after.url);
  const moved: MovedSecrets = {};
  if (from !== to) {
    moved.origin = `the url moved from ${from} to ${to}, and a stored secret is only sent to the origin it was given for: ${AGAIN}`;
    moved.headers = moved.origin;
  } else if ((before.capture.headersScope ?? 'origin') === 'origin' && after.capture.headersScope === 'all') {
    moved.headers = `headersScope "all" would send this stored header to every host the page loads from, and it was given for ${from} only: ${AGAIN}`;
  }
  return moved;
}
