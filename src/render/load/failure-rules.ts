// The failure rules a render request may set, named as Gotenberg names them: which main-document and
// sub-resource statuses fail the render, whether a resource that failed without an answer does, and
// whether an exception the page did not catch does. A broken rule is a 422 render_failed listing what broke it.
import { renderFailed, type AppError } from '../../errors.js';
import type { PageSpec } from '../../domain/render-spec.js';
import type { Violation } from './page-events.js';

/** What the page's events are judged by while the render runs (page-events.ts). */
export interface FailureRules {
  /** Whether a sub-resource's status at `url` fails the render (failOnResourceHttpStatusCodes less the ignored domains). */
  resourceStatus?: (status: number, url: string) => boolean;
  resourceLoadingFailed?: boolean;
  consoleExceptions?: boolean;
}

export const noRules: FailureRules = {};

/** The option each rule comes from, for the 422's message and details. */
const OPTION: Record<keyof FailureRules, string> = {
  resourceStatus: 'failOnResourceHttpStatusCodes',
  resourceLoadingFailed: 'failOnResourceLoadingFailed',
  consoleExceptions: 'failOnConsoleExceptions',
};

/** Whether `status` is in `codes`, where an entry X99 (199, 299 ... 599) stands for every status X00–X99. */
export function statusMatches(codes: readonly number[], status: number): boolean {
  return codes.some((code) => (code % 100 === 99 ? status >= code - 99 && status <= code : status === code));
}

/** "Example.COM", "*.example.com" and ".example.com" all name example.com and its subdomains. */
export const normalizeDomain = (domain: string) => domain.toLowerCase().replace(/^\*?\./, '');

/** Whether `url`'s host is one of `domains` or a subdomain of one. */
export function onDomains(url: string, domains: readonly string[]): boolean {
  if (domains.length === 0) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

export function failureRules(req: PageSpec): FailureRules {
  const codes = req.failOnResourceHttpStatusCodes;
  const ignored = (req.ignoreResourceHttpStatusDomains ?? []).map(normalizeDomain);
  const rules: FailureRules = {};
  if (codes?.length) rules.resourceStatus = (status, url) => statusMatches(codes, status) && !onDomains(url, ignored);
  if (req.failOnResourceLoadingFailed) rules.resourceLoadingFailed = true;
  if (req.failOnConsoleExceptions) rules.consoleExceptions = true;
  return rules;
}

/**
 * Whether the main document's `status` fails the render: failOnHttpStatusCodes when given (an empty list:
 * never), else failOnHttpError (default true: any status from 400 on).
 */
export function mainDocumentFails(req: PageSpec, status: number): boolean {
  if (req.failOnHttpStatusCodes) return statusMatches(req.failOnHttpStatusCodes, status);
  return (req.failOnHttpError ?? true) && status >= 400;
}

/** What to change to render a page that answered such a status anyway. */
export function mainStatusAdvice(req: PageSpec): string {
  return req.failOnHttpStatusCodes
    ? 'leave it out of failOnHttpStatusCodes to render it anyway'
    : 'set failOnHttpError: false to render it anyway';
}

/** The 422 for broken rules: the first in the message, up to MAX_VIOLATIONS in details under their option's name. */
export function rulesBroken(violations: readonly Violation[], count: number): AppError {
  const first = violations[0]!;
  const more = count > 1 ? `; and ${count - 1} more${violations.length > 1 ? ', listed in details' : ''}` : '';
  return renderFailed(
    `The render failed by ${OPTION[first.rule]}: ${first.what}${more}.`,
    undefined,
    false,
    violations.map((v) => ({ path: OPTION[v.rule], message: v.what })),
  );
}
