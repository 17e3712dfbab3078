// A render's failure said in words, with what the render saw of it: a failed load (connection refused,
// host not found...) named by the hop that failed and the egress proxy's reason; a timeout while the
// site had not yet sent its page. Anything else is passed on as it is.
import { errors as pwErrors } from 'playwright';
import type { EgressFailures } from '../egress/failures.js';
import type { RenderSpec } from '../domain/render-spec.js';
import type { EgressWatch } from './egress-watch.js';
import type { MainFrameNavigations } from './navigations.js';
import { loadFailed, LoadError, siteTimedOut } from './network-errors.js';

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
