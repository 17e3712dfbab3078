// What the egress proxy refused during one render, seen from the page: a refused main-document hop
// makes the render a 403 url_blocked; refused sub-resources are only counted. It also keeps the main
// document's last status, which a monitor's capture reads (PageFacts.status).
import type { Page, Request, Response } from 'playwright';
import { BLOCKED_HEADER, REASON_HEADER } from '../../egress/proxy.js';
import { isMainDocument } from './navigations.js';

export class EgressWatch {
  blockedSubresources = 0;
  /** A main-document URL the proxy refused (plain http: it answers 403 with BLOCKED_HEADER). */
  blockedDocument: string | undefined;
  /** A main-document URL whose tunnel failed (https: a refusal looks like any tunnel failure). */
  failedTunnel: string | undefined;

  /** The status of the last main-document response (after redirects and steps: the document captured). */
  documentStatus: number | undefined;

  /** The last error answer to a main-document request: the origin's status, or the proxy's reason it had none. */
  documentError: { url: string; status: number; proxyReason?: string } | undefined;

  private readonly onResponse = (res: Response) => {
    const marker = res.headers()[BLOCKED_HEADER];
    if (marker !== 'blocked' && isMainDocument(this.page, res.request())) this.documentStatus = res.status();
    if (res.status() >= 400 && marker !== 'blocked' && isMainDocument(this.page, res.request()))
      this.documentError = {
        url: res.url(),
        status: res.status(),
        proxyReason: marker === 'unreachable' ? res.headers()[REASON_HEADER] : undefined,
      };
    if (marker !== 'blocked') return;
    if (isMainDocument(this.page, res.request())) this.blockedDocument ??= res.url();
    else this.blockedSubresources++;
  };

  private readonly onFailed = (req: Request) => {
    if (req.failure()?.errorText !== 'net::ERR_TUNNEL_CONNECTION_FAILED') return;
    if (isMainDocument(this.page, req)) this.failedTunnel ??= req.url();
    else this.blockedSubresources++;
  };

  constructor(private readonly page: Page) {
    page.on('response', this.onResponse);
    page.on('requestfailed', this.onFailed);
  }

  dispose(): void {
    this.page.off('response', this.onResponse);
    this.page.off('requestfailed', this.onFailed);
  }
}
