// What a render saw besides its output: resources that failed, what the page's script reported, how the
// load went, characters no font could draw, and whether a size cap cut the output. Every render gathers
// it; the HTTP layer sends it in JSON answers and async results, and counts of it in headers.

/** A sub-resource (or the main document) that did not load as asked. */
export interface FailedResource {
  url: string;
  /** Playwright's resource type: document, stylesheet, image, font, script, fetch, xhr... */
  resourceType: string;
  /** The HTTP status it answered with (>= 400); absent when it failed without an answer. */
  status?: number;
  /** The network error in plain words (e.g. "the host name could not be resolved"); absent with a status. */
  error?: string;
}

/** A console.error message, or an exception no script caught. */
export interface PageMessage {
  /** The message; for an exception its name and message ("TypeError: x is undefined"). */
  text: string;
  /** Exceptions: the first few lines of the stack. Console errors: "url:line:column" where known. */
  location?: string;
}

/** A character drawn with no real glyph (a box, "tofu") because no font the page could use has it. */
export interface MissingGlyph {
  /** The character itself. */
  char: string;
  /** Its code point, "U+4E2D". */
  codePoint: string;
  /** A short selector of the first element that shows it. */
  selector: string;
}

export interface LoadTimeline {
  /** What ended the wait for the page: "load", "domcontentloaded", "networkidle", "waitForSelector", ... */
  endedBy: string;
  /** Milliseconds each stage took, in order (e.g. queue, navigation, waits, capture). */
  stagesMs: Record<string, number>;
}

export interface RenderDiagnostics {
  failedResources: FailedResource[];
  consoleErrors: PageMessage[];
  exceptions: PageMessage[];
  load: LoadTimeline;
  missingGlyphs: MissingGlyph[];
  /** More characters had no glyph than missingGlyphs lists (it lists the first 50); absent otherwise. */
  moreMissingGlyphs?: true;
  /** A size cap cut the output (images: the X-Truncated value, e.g. "full-page"); absent when whole. */
  truncated?: string;
  /**
   * Entries left out of a list past its cap (DIAGNOSTICS_LIST_CAP each); absent when nothing was left out.
   * The headers' counts include them.
   */
  omitted?: { failedResources?: number; consoleErrors?: number; exceptions?: number };
}

/** At most this many entries in each list of the diagnostics; the rest are counted in `omitted`. */
export const DIAGNOSTICS_LIST_CAP = 50;
/** Texts (a message, a location, a URL) longer than this are cut, ending in "…". */
export const DIAGNOSTICS_TEXT_CAP = 1000;

/** How many of each the diagnostics saw, left-out entries included: the X-Render-* headers and webhook counts. */
export function diagnosticsCounts(d: RenderDiagnostics): {
  failedResources: number;
  consoleErrors: number;
  exceptions: number;
  missingGlyphs: number;
} {
  return {
    failedResources: d.failedResources.length + (d.omitted?.failedResources ?? 0),
    consoleErrors: d.consoleErrors.length + (d.omitted?.consoleErrors ?? 0),
    exceptions: d.exceptions.length + (d.omitted?.exceptions ?? 0),
    missingGlyphs: d.missingGlyphs.length,
  };
}
