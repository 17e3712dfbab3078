// What a render saw besides its output (src/domain/render-diagnostics.ts), as the JSON answer of a
// synchronous render and an async job's result show it.
import { z } from 'zod';
import {
  DIAGNOSTICS_LIST_CAP,
  DIAGNOSTICS_TEXT_CAP,
  type RenderDiagnostics,
} from '../../../domain/render-diagnostics.js';
import type { Documents, Holds } from '../type-checks.js';

const failedResource = z.object({
  url: z.string(),
  resourceType: z.string().describe('document, stylesheet, image, font, script, fetch, xhr, media...'),
  status: z.int().optional().describe('The HTTP status it answered with (>= 400)'),
  error: z
    .string()
    .optional()
    .describe(
      'Why it failed without an answer, in words ("host not found: … does not resolve to an address", ' +
        '"blocked by the service\'s egress policy")',
    ),
});

const pageMessage = z.object({
  text: z.string().describe('The message; for an exception its name and message ("TypeError: …")'),
  location: z
    .string()
    .optional()
    .describe('console.error: "url:line:column"; an exception: the first lines of its stack'),
});

const cap = `at most ${DIAGNOSTICS_LIST_CAP} (the rest counted in omitted), texts cut at ${DIAGNOSTICS_TEXT_CAP} characters`;

export const renderDiagnostics = z
  .object({
    failedResources: z
      .array(failedResource)
      .describe(`Resources (the page itself included) that answered >= 400 or failed without an answer; ${cap}`),
    consoleErrors: z.array(pageMessage).describe(`The page's console.error messages; ${cap}`),
    exceptions: z.array(pageMessage).describe(`Exceptions no script of the page caught; ${cap}`),
    load: z.object({
      endedBy: z
        .string()
        .describe(
          'What ended the wait for the page: its waitUntil (load, domcontentloaded, networkidle), ' +
            'waitForSelector, waitForFunction, delay, or fontsAndImagesTimeout',
        ),
      stagesMs: z
        .record(z.string(), z.int())
        .describe(
          'Milliseconds per stage, in order: queue, navigation, steps (monitors), waits, pageChanges, delay, ' +
            'glyphs (the missing-glyph check), capture; together at most renderMs',
        ),
    }),
    missingGlyphs: z
      .array(z.object({ char: z.string(), codePoint: z.string(), selector: z.string() }))
      .describe('Characters no font could draw (shown as boxes), the first in document order'),
    moreMissingGlyphs: z
      .literal(true)
      .optional()
      .describe('More characters had no glyph than missingGlyphs lists (it stops at the first 50)'),
    truncated: z.string().optional().describe('A size cap cut the output: the X-Truncated value'),
    omitted: z
      .object({
        failedResources: z.int().optional(),
        consoleErrors: z.int().optional(),
        exceptions: z.int().optional(),
      })
      .optional()
      .describe('Entries left out of a list past its cap'),
  })
  .describe('What the render saw: failed resources, page errors, how the load went (docs/rendering.md, Diagnostics)');

export type DiagnosticsDocumented = Holds<Documents<RenderDiagnostics, typeof renderDiagnostics>>;
