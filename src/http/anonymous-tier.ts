// The limits of renders without an API key (the public converter tier), on top of the body size and
// rate limits every anonymous request has: a shorter timeout, renders at once per client address,
// and PDFs of bounded length. A key lifts them all (its timeout is limits.maxTimeoutMs).
import { humanMs } from '../domain/units.js';
import { invalidRequest, rateLimited, renderFailed } from '../errors.js';
import type { RenderOutput } from '../render/renderer.js';
import { clientAddressKey } from './client-address.js';
import { ClientSlots } from './client-slots.js';
import { capPageRanges } from './pdf-page-cap.js';
import type { PageRequest, PdfRequest } from './schemas/render.js';

export interface AnonymousLimits {
  anonymousMaxTimeoutMs: number;
  anonymousConcurrencyPerIp: number;
  anonymousMaxPdfPages: number;
}

/** Nobody can know when the render in progress ends; a second is short enough for a person to retry. */
const SLOT_RETRY_AFTER_SECONDS = 1;

export class AnonymousTier {
  private readonly slots: ClientSlots;

  constructor(private readonly limits: AnonymousLimits) {
    this.slots = new ClientSlots(limits.anonymousConcurrencyPerIp);
  }

  /**
   * 400 for a `timeout` over the anonymous limit. One the caller did not send (the schema's default)
   * is brought down to the limit instead: nobody should be refused for a field they never wrote.
   */
  limitTimeout<T extends PageRequest>(raw: unknown, req: T): T {
    if (req.timeout <= this.limits.anonymousMaxTimeoutMs) return req;
    const sent = typeof raw === 'object' && raw !== null && 'timeout' in raw;
    if (!sent) return { ...req, timeout: this.limits.anonymousMaxTimeoutMs };
    const max = this.limits.anonymousMaxTimeoutMs;
    const sentence =
      `timeout can be at most ${humanMs(max)} (${max}) without an API key: ` +
      'give a smaller number, or use an API key, which allows longer renders.';
    throw invalidRequest(`The request has 1 invalid field: ${sentence}`, [{ path: 'timeout', message: sentence }]);
  }

  /** Runs `render` in one of the client's slots (429 when it holds them all); the slot is freed however it ends. */
  async inSlot<T>(ip: string, render: () => Promise<T>): Promise<T> {
    const release = this.slots.tryTake(clientAddressKey(ip));
    if (!release) {
      const max = this.limits.anonymousConcurrencyPerIp;
      throw rateLimited(
        SLOT_RETRY_AFTER_SECONDS,
        `Without an API key, ${max} render${max === 1 ? '' : 's'} at a time per client address: ` +
          'wait for the one in progress to finish, or use an API key.',
      );
    }
    try {
      return await render();
    } finally {
      release();
    }
  }

  /** The request Chromium gets: at most one page past the limit is printed, enough to know it was passed. */
  boundedPdf(req: PdfRequest): PdfRequest {
    return { ...req, pageRanges: capPageRanges(req.pageRanges, this.limits.anonymousMaxPdfPages + 1) };
  }

  /** 422 when the PDF (as bounded by boundedPdf) is over the limit. */
  checkPdf(out: RenderOutput): void {
    const max = this.limits.anonymousMaxPdfPages;
    if ((out.pageCount ?? 0) > max) {
      throw renderFailed(
        `The PDF would have more than ${max} pages, the limit without an API key: ` +
          'choose fewer pages with pageRanges, or use an API key, which lifts the limit.',
      );
    }
  }
}
