import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import { AppError } from '../../errors.js';
import type { Ready } from '../schemas/responses/status.js';

export interface Readiness {
  /** Whether the database answers (a trivial query). */
  database: () => Promise<boolean>;
  /** `reason`, when given, says why no browser can start and how to fix it (e.g. the sandbox). */
  browser: () => Promise<{ usable: boolean; reason?: string }>;
  /** Whether the disk of dataDir has room (storage.minFreeBytes); absent when this node writes nothing there. */
  storage?: () => Promise<{ usable: boolean; reason?: string }>;
  /**
   * Which scripts have no font (a warning, not a failure: the rest renders); `unknown` when that could not
   * be checked. Absent: not checked.
   */
  fonts?: () => Promise<{ missing: string[]; unknown?: string; warning?: string }>;
  /**
   * Whether the PDF tools can run (qpdf installed): a warning, not a failure, since renders need no qpdf;
   * `reason` says what is missing and how to fix it. Absent: not checked.
   */
  pdfTools?: () => { usable: boolean; reason?: string };
  /**
   * Whether watched PDFs can be read (poppler's pdfinfo, pdftotext and pdftoppm run): a warning, not a
   * failure, since only monitors that watch a PDF need them. Absent: not checked.
   */
  pdfText?: () => { usable: boolean; reason?: string };
  /** Whether Chromium runs sandboxed, and the warning logged at start when it does not. */
  sandbox: { enabled: boolean; warning?: string };
}

export function healthRoutes(readiness: Readiness): Router {
  const router = exactRouter();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/ready', async (ctx) => {
    const [database, browser, storage, fonts] = await Promise.all([
      readiness.database(),
      readiness.browser(),
      readiness.storage?.(),
      readiness.fonts?.(),
    ]);
    const checks = [
      { path: 'database', usable: database, reason: 'the database does not answer; requests that need it get 503' },
      { path: 'browser', ...browser },
      ...(storage ? [{ path: 'storage', ...storage }] : []),
    ];
    const failing = checks.filter((c) => !c.usable);
    if (failing.length) {
      const details = failing.map(({ path, reason }) => ({
        path,
        message: reason ? `not usable: ${reason}` : 'not usable',
      }));
      throw new AppError('unavailable', 'not ready', { details });
    }
    const { enabled, warning } = readiness.sandbox;
    const pdfTools = readiness.pdfTools?.();
    const pdfWarning = pdfTools && !pdfTools.usable ? `The PDF tools are unavailable: ${pdfTools.reason}.` : undefined;
    const pdfText = readiness.pdfText?.();
    const pdfTextWarning = pdfText && !pdfText.usable ? `Watched PDFs cannot be read: ${pdfText.reason}.` : undefined;
    const warnings = [warning, fonts?.warning, pdfWarning, pdfTextWarning].filter((w): w is string => Boolean(w));
    ctx.body = {
      status: 'ready',
      checks: {
        database: 'ok',
        browser: 'ok',
        ...(storage && { storage: 'ok' as const }),
        ...(fonts && { fonts: fonts.unknown ? ('unknown' as const) : fonts.missing.length ? 'warn' : 'ok' }),
        ...(pdfTools && { pdfTools: pdfTools.usable ? ('ok' as const) : ('warn' as const) }),
        ...(pdfText && { pdfText: pdfText.usable ? ('ok' as const) : ('warn' as const) }),
      },
      sandbox: enabled ? 'on' : 'off',
      ...(fonts?.missing.length && { missingFonts: fonts.missing }),
      ...(warnings.length && { warnings }),
    } satisfies Ready;
  });
  return router;
}
