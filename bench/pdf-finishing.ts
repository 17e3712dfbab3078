/**
 * The PDF engine's cost: the added p50 of each finishing option (pdfa, pdfua, encrypt, watermark, facturx)
 * on the bench invoice and on a 300-page report, and the peak memory of finishing the 300-page report.
 * The engine runs after the render, once the page is released, so what an option adds to a request is
 * exactly the engine's time; a request without options never calls it (the HTTP route skips it).
 * Samples are interleaved option by option, so load drifts hit every option alike.
 *
 *   npm run bench -- --pdf        # prints {"pdfFinishing": {...}} as its one JSON line
 *
 * Env: BENCH_PDF_SAMPLES (15) samples per option and document.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright';
import type { PdfFinishing } from '../src/domain/pdf-spec.js';
import { QpdfPdfEngine } from '../src/pdf/pdf-engine.js';
import { projectRoot } from '../src/project-root.js';
import { invoiceHtml } from './invoice-html.js';
import { log } from './measure.js';
import { processTree } from './process-tree.js';
import { launchRaw } from './raw.js';
import { percentile, round1 } from './stats.js';

const SAMPLES = Math.max(1, Number(process.env.BENCH_PDF_SAMPLES ?? 15));
const REPORT_PAGES = 300;
const SPACING_MS = 500;

const OPTIONS: Record<string, PdfFinishing> = {
  pdfa: { pdfa: 'PDF/A-2b' },
  pdfua: { pdfua: true, metadata: { title: 'Bench document', language: 'en' } },
  encrypt: {
    encrypt: {
      userPassword: 'bench-user',
      ownerPassword: 'bench-owner',
      permissions: { print: 'full', copy: false, modify: false, annotate: false, fillForms: false, assemble: false },
    },
  },
  watermark: {
    watermark: { text: 'DRAFT', opacity: 0.3, rotation: 45, position: 'center', offsetX: 0, offsetY: 0 },
  },
  facturx: {
    facturx: {
      xml: readFileSync(join(projectRoot(), 'test/fixtures/facturx/en16931-invoice.xml')),
      profile: 'EN 16931',
    },
  },
};

/** A report: REPORT_PAGES pages, each a heading, two paragraphs and a small table. */
function reportHtml(): string {
  const page = (n: number) =>
    `<section style="break-after: page"><h2>Section ${n}</h2><p>Findings of part ${n}: the figures below are ` +
    `measured values.</p><table><tr><th>Item</th><th>Value</th></tr><tr><td>a${n}</td><td>${n * 7}</td></tr>` +
    `<tr><td>b${n}</td><td>${n * 13}</td></tr></table><p>End of part ${n}.</p></section>`;
  const body = Array.from({ length: REPORT_PAGES }, (_, i) => page(i + 1)).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Report</title></head><body>${body}</body></html>`;
}

async function print(browser: Browser, html: string): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    await page.setContent(html);
    return await page.pdf({ format: 'A4', printBackground: true, tagged: true, outline: true });
  } finally {
    await page.close();
  }
}

/** The service's renderStamp, on the bench's own browser: the stamp's page, transparent, untagged. */
function stampRenderer(browser: Browser) {
  return async ({ html, widthPt, heightPt }: { html: string; widthPt: number; heightPt: number }) => {
    const page = await browser.newPage();
    try {
      await page.setContent(html);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
      const size = { width: `${widthPt / 72}in`, height: `${heightPt / 72}in` };
      return await page.pdf({ ...size, printBackground: true, pageRanges: '1', tagged: false });
    } finally {
      await page.close();
    }
  };
}

/** Resident memory of this process (the engine's worker thread is in it) plus its qpdf children, MiB. */
function engineRssMiB(): number {
  let kib = 0;
  for (const pid of processTree(process.pid).keys()) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (pid !== process.pid && comm !== 'qpdf' && comm !== 'prlimit') continue;
      const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kib += Number(match?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return kib / 1024;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

export interface PdfFinishingFigures {
  samples: number;
  /** Added p50 per option, ms: what the engine takes after the render. */
  invoice: {
    bytes: number;
    addedP50Ms: Record<string, number>;
    /** pdfa with no pause between calls: each waits for its thread to load pdf-lib. */
    backToBackMs: { pdfa: number };
  };
  report: { pages: number; bytes: number; addedP50Ms: Record<string, number> };
  /** Finishing the report with pdfa + watermark: peak over the idle baseline, against the file's size. */
  reportPeakMemory: {
    fileMiB: number;
    baselineMiB: number;
    peakMiB: number;
    addedMiB: number;
    addedOverFile: number;
    /** The same for the invoice (100 KB): the fixed cost of a finishing. */
    invoiceAddedMiB: number;
    /** (report's added − invoice's added) / the report's size: what each byte of the file costs. */
    sizeCostOverFile: number;
  };
}

export async function measurePdfFinishing(): Promise<PdfFinishingFigures> {
  const browser = await launchRaw();
  try {
    const engine = new QpdfPdfEngine(
      { timeoutMs: 120_000, memoryMb: 2048, maxPages: 5000, maxFiles: 50 },
      stampRenderer(browser),
    );
    log('printing the invoice and the 300-page report');
    const invoice = await print(browser, invoiceHtml);
    const report = await print(browser, reportHtml());
    const addedP50 = async (pdf: Buffer, samples: number) => {
      const times: Record<string, number[]> = Object.fromEntries(Object.keys(OPTIONS).map((k) => [k, []]));
      for (const finishing of Object.values(OPTIONS)) await engine.finish(Buffer.from(pdf), finishing); // warm-up
      for (let i = 0; i < samples; i++)
        for (const [name, finishing] of Object.entries(OPTIONS)) {
          // Spaced as a service's requests are, so the engine's spare thread is ready (back to back, a
          // pass waits for it to load pdf-lib: ~0.25 s more, see backToBackMs).
          await sleep(SPACING_MS);
          times[name]!.push(await timed(() => engine.finish(Buffer.from(pdf), finishing)));
        }
      return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, round1(percentile(v, 50))]));
    };
    log('invoice');
    const invoiceP50 = await addedP50(invoice, SAMPLES);
    const backToBack: number[] = [];
    for (let i = 0; i < SAMPLES; i++)
      backToBack.push(await timed(() => engine.finish(Buffer.from(invoice), OPTIONS.pdfa!)));
    log('300-page report');
    const reportP50 = await addedP50(report, Math.max(3, Math.ceil(SAMPLES / 3)));

    log('peak memory of finishing the invoice and the report');
    const peakOf = async (pdf: Buffer) => {
      const baseline = engineRssMiB();
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, engineRssMiB())), 5);
      try {
        await engine.finish(Buffer.from(pdf), { ...OPTIONS.pdfa, ...OPTIONS.watermark });
      } finally {
        clearInterval(sampler);
      }
      return { baseline, peak };
    };
    // The invoice's peak is the fixed cost (a worker thread, pdf-lib loaded): the report's over it is what
    // the file's size costs.
    const small = await peakOf(invoice);
    const { baseline, peak } = await peakOf(report);
    const fileMiB = report.length / 1024 / 1024;
    return {
      samples: SAMPLES,
      invoice: {
        bytes: invoice.length,
        addedP50Ms: invoiceP50,
        backToBackMs: { pdfa: round1(percentile(backToBack, 50)) },
      },
      report: { pages: REPORT_PAGES, bytes: report.length, addedP50Ms: reportP50 },
      reportPeakMemory: {
        fileMiB: round1(fileMiB),
        baselineMiB: round1(baseline),
        peakMiB: round1(peak),
        addedMiB: round1(peak - baseline),
        addedOverFile: round1((peak - baseline) / fileMiB),
        invoiceAddedMiB: round1(small.peak - small.baseline),
        sizeCostOverFile: round1((peak - baseline - (small.peak - small.baseline)) / fileMiB),
      },
    };
  } finally {
    await browser.close();
  }
}
