// A page that could not be loaded, said in words. Chromium's codes (net::ERR_…) and the egress proxy's
// reasons (Node error codes) are for developers and stay in the error's details; the message says what
// happened — connection refused, host not found, TLS failure, timed out, too many redirects — to which
// host, and what to do. "Blocked by the egress policy" is not here: it is url_blocked (errors.ts).
import { humanMs } from '../../domain/units.js';
import { AppError, renderFailed, renderTimeout } from '../../errors.js';
import { errors as pwErrors } from 'playwright';
import type { EgressFailures } from '../../egress/failures.js';
import type { RenderSpec } from '../../domain/render-spec.js';
import type { EgressWatch } from './egress-watch.js';
import type { MainFrameNavigations } from './navigations.js';

/** A main-document load that failed with a Chromium network error (thrown by prepare.ts, worded by the renderer). */
export class LoadError extends Error {
  constructor(
    readonly url: string,
    /** Chromium's code, e.g. net::ERR_CONNECTION_REFUSED. */
    readonly errorText: string,
    cause: unknown,
  ) {
    super(`could not load ${url}: ${errorText}`, { cause });
  }
}

/** What else is known about the failure: the proxy's reason and the status of an empty error answer. */
export interface LoadContext {
  /** The egress proxy's reason (ECONNREFUSED, ENOTFOUND, ETIMEDOUT...), when it could not reach the origin. */
  proxyReason?: string;
  /** The origin's own HTTP status, when it answered an error with an empty body. */
  status?: number;
}

type Kind = 'refused' | 'not-found' | 'tls' | 'timed-out' | 'redirects' | 'reset' | 'unreachable' | 'http' | 'other';

const BY_PROXY_REASON: Record<string, Kind> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'not-found',
  EAI_AGAIN: 'not-found',
  ETIMEDOUT: 'timed-out',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
};

function kindOf(errorText: string, context: LoadContext): Kind {
  const byProxy = context.proxyReason && BY_PROXY_REASON[context.proxyReason];
  if (byProxy) return byProxy;
  const code = errorText.replace(/^net::ERR_/, '');
  if (code === 'CONNECTION_REFUSED') return 'refused';
  if (/^NAME_(NOT_RESOLVED|RESOLUTION_FAILED)$/.test(code)) return 'not-found';
  if (/^(CERT_|SSL_|BAD_SSL_)/.test(code)) return 'tls';
  if (/TIMED_OUT$/.test(code)) return 'timed-out';
  if (code === 'TOO_MANY_REDIRECTS') return 'redirects';
  if (/^(CONNECTION_(RESET|CLOSED|ABORTED)|EMPTY_RESPONSE)$/.test(code)) return 'reset';
  if (/^(ADDRESS|NETWORK|INTERNET)_(UNREACHABLE|DISCONNECTED)$/.test(code)) return 'unreachable';
  if (code === 'HTTP_RESPONSE_CODE_FAILURE' && context.status !== undefined) return 'http';
  return 'other';
}

/** Why a certificate was refused, in words, for the codes a real site hits. */
function certificateProblem(errorText: string): string {
  if (errorText.includes('AUTHORITY_INVALID')) return 'is not signed by a trusted authority (self-signed?)';
  if (errorText.includes('DATE_INVALID')) return 'has expired or is not valid yet';
  if (errorText.includes('COMMON_NAME_INVALID')) return 'was issued for another host name';
  if (errorText.includes('REVOKED')) return 'has been revoked';
  return 'or its secure connection was refused';
}

/** A failed load of `url` in words: what happened, and what the caller can do; undefined for a code we do not know. */
function failureWords(
  url: string,
  errorText: string,
  context: LoadContext,
): { what: string; advice: string } | undefined {
  let host = url;
  let hostname = url;
  try {
    ({ host, hostname } = new URL(url));
  } catch {
    /* not a URL: name it as given */
  }
  switch (kindOf(errorText, context)) {
    case 'refused':
      return {
        what: `Connection refused: nothing is listening at ${host}`,
        advice: "check the URL's host and port, and that the site is running",
      };
    case 'not-found':
      return {
        what: `Host not found: ${hostname} does not resolve to an address`,
        advice: 'check the spelling of the URL',
      };
    case 'tls':
      return {
        what: `TLS failure: the certificate of ${host} ${certificateProblem(errorText)}`,
        advice: "fix the site's certificate or use its http:// address",
      };
    case 'timed-out':
      return {
        what: `Timed out: ${host} did not answer in time`,
        advice: 'check that the site is up, or try again later',
      };
    case 'redirects':
      return {
        what: `Too many redirects: ${url} kept redirecting (a redirect loop)`,
        advice: "check the site's redirects and the cookies it needs",
      };
    case 'reset':
      return {
        what: `Connection reset: ${host} closed the connection without answering`,
        advice: 'check that the site is healthy, or try again',
      };
    case 'unreachable':
      return {
        what: `Network unreachable: there is no route to ${host}`,
        advice: 'check the URL, or the network of the service',
      };
    case 'http':
      return {
        what: `The page answered HTTP ${context.status} with an empty body, so there is nothing to render`,
        advice: 'check the URL',
      };
    default:
      return undefined;
  }
}

/** The plain sentence for a failed load of `url`; undefined when the code is not a network failure we know. */
export function networkFailureMessage(url: string, errorText: string, context: LoadContext = {}): string | undefined {
  const words = failureWords(url, errorText, context);
  return words && `${words.what}; ${words.advice}.`;
}

/**
 * A sub-resource's failure in a few words, the same words the page's own failure starts with ("connection
 * refused", "host not found"...), naming the host; Chromium's code when it is not one we know.
 */
export function networkErrorInWords(url: string, errorText: string, context: LoadContext = {}): string {
  const what = failureWords(url, errorText, context)?.what;
  if (!what) return rawCodes(errorText, context);
  // "Connection refused: …" → "connection refused: …", but "TLS failure" stays as it is.
  return /^[A-Z][a-z]/.test(what) ? what[0]!.toLowerCase() + what.slice(1) : what;
}

/** The raw codes, for the error's details: Chromium's, and the proxy's reason when it had one. */
export function rawCodes(errorText: string, context: LoadContext = {}): string {
  return context.proxyReason ? `${errorText} (egress proxy: ${context.proxyReason})` : errorText;
}

/** 422 render_failed in words, with the raw codes in `details` under `path` (the url field). */
export function loadFailed(url: string, errorText: string, context: LoadContext = {}, cause?: unknown): AppError {
  const message = networkFailureMessage(url, errorText, context) ?? `Could not load ${url}: ${errorText}.`;
  return renderFailed(message, cause, false, [{ path: 'url', message: rawCodes(errorText, context) }]);
}

/** The top-level name does not resolve (found before any request is made): 422 host not found. */
export function hostNotFound(url: string, policyReason: string): AppError {
  const context = { proxyReason: 'ENOTFOUND' };
  return renderFailed(networkFailureMessage(url, '', context)!, undefined, false, [
    { path: 'url', message: `ENOTFOUND (${policyReason})` },
  ]);
}

/** The render's timeout ran out while the site had not yet sent its page: 504, saying it was the site. */
export function siteTimedOut(url: string, timeoutMs: number): AppError {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    /* name it as given */
  }
  return renderTimeout(
    timeoutMs,
    `Timed out: ${host} did not send its page within the render's timeout of ${humanMs(timeoutMs)}; ` +
      `check that the site answers, or raise timeout (in milliseconds, now ${timeoutMs}).`,
  );
}

// A render's failure said in words, with what the render saw of it: a failed load (connection refused,
// host not found...) named by the hop that failed and the egress proxy's reason; a timeout while the
// site had not yet sent its page. Anything else is passed on as it is.

export interface FailureContext {
  watch: EgressWatch;
  navigations: MainFrameNavigations;
  timeoutSignal: AbortSignal;
  req: RenderSpec;
  failures?: EgressFailures;
}

export function failureInWords(
  err: unknown,
  { watch, navigations, timeoutSignal, req, failures }: FailureContext,
): unknown {
  if (err instanceof LoadError) {
    // Chromium names the URL it was asked for; a redirect hop that failed is named by what the page saw.
    const answer = watch.documentError;
    const failed = answer?.url ?? watch.failedTunnel ?? err.url;
    const proxyReason = answer?.proxyReason ?? failures?.reasonFor(failed);
    return loadFailed(failed, err.errorText, { proxyReason, status: answer?.status }, err.cause);
  }
  const timedOut = timeoutSignal.aborted || err instanceof pwErrors.TimeoutError;
  if (timedOut && req.url !== undefined && navigations.moving && !navigations.loadedAny)
    return siteTimedOut(req.url, req.timeout);
  return err;
}
