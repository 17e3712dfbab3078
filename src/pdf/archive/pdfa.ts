// PDF/A-2b and PDF/A-3b (ISO 19005-2 / -3, level b: the visual appearance is preserved). Chromium's output
// already embeds every font and keeps its structure tree; this adds what it lacks (the sRGB output intent,
// the XMP claim) and removes what PDF/A forbids (actions that run code or leave the file, hidden
// annotations, image interpolation). Encryption is refused before this runs (checkArchiveOptions).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHeader,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFStream,
  PDFString,
} from 'pdf-lib';
import type { PdfALevel } from '../../domain/pdf-spec.js';
import { projectRoot } from '../../project-root.js';
import { syncXmp } from './metadata.js';

const SRGB_ICC_FILE = join(projectRoot(), 'src/pdf/archive/assets/sRGB_IEC61966_2_1.icc');
let srgbIcc: Uint8Array | undefined;
const SRGB = 'sRGB IEC61966-2.1';

/** ISO 19005-2 6.6.1: the action types a conforming file shall not use. */
const FORBIDDEN_ACTIONS = new Set([
  'Launch',
  'Sound',
  'Movie',
  'ResetForm',
  'ImportData',
  'Hide',
  'SetOCGState',
  'Rendition',
  'Trans',
  'GoTo3DView',
  'JavaScript',
]);

/** Annotation flags (ISO 32000-1 12.5.3). */
const INVISIBLE = 1;
const HIDDEN = 2;
const PRINT = 4;
const NO_VIEW = 32;

export const pdfaPart = (level: PdfALevel): number => (level === 'PDF/A-2b' ? 2 : 3);

function isForbiddenAction(doc: PDFDocument, value: unknown): boolean {
  const action = value && doc.context.lookup(value as never);
  return (
    action instanceof PDFDict && FORBIDDEN_ACTIONS.has(action.lookupMaybe(PDFName.of('S'), PDFName)?.decodeText() ?? '')
  );
}

/** Drops JavaScript, Launch and the other forbidden actions, and every additional-actions (/AA) entry. */
function removeForbiddenActions(doc: PDFDocument): void {
  doc.catalog.lookupMaybe(PDFName.of('Names'), PDFDict)?.delete(PDFName.of('JavaScript'));
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    const dict = object instanceof PDFDict ? object : object instanceof PDFStream ? object.dict : undefined;
    if (!dict) continue;
    // ISO 19005-2 6.6.2: no /AA in the catalog, pages or annotations (6.5.2 for widgets) — none anywhere.
    dict.delete(PDFName.of('AA'));
    for (const key of ['A', 'OpenAction'])
      if (isForbiddenAction(doc, dict.get(PDFName.of(key)))) dict.delete(PDFName.of(key));
  }
}

/** ISO 19005-2 6.3.2: annotations print, and none is hidden or invisible. */
function showAnnotations(doc: PDFDocument): void {
  for (const page of doc.getPages()) {
    const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
    for (let i = 0; annots && i < annots.size(); i++) {
      const annot = annots.lookupMaybe(i, PDFDict);
      if (!annot) continue;
      const flags = annot.lookupMaybe(PDFName.of('F'), PDFNumber)?.asNumber() ?? 0;
      annot.set(PDFName.of('F'), PDFNumber.of((flags | PRINT) & ~(INVISIBLE | HIDDEN | NO_VIEW)));
    }
  }
}

/** ISO 19005-2 6.2.8: an image's /Interpolate shall not be true. */
function noInterpolation(doc: PDFDocument): void {
  for (const [, object] of doc.context.enumerateIndirectObjects())
    if (object instanceof PDFRawStream || object instanceof PDFStream) object.dict.delete(PDFName.of('Interpolate'));
}

/** ISO 19005-2 6.2.3: one output intent, GTS_PDFA1, whose profile is embedded: sRGB, as Chromium paints. */
function srgbOutputIntent(doc: PDFDocument): void {
  srgbIcc ??= readFileSync(SRGB_ICC_FILE);
  const profile = doc.context.register(doc.context.flateStream(srgbIcc, { N: 3 }));
  const intent = doc.context.obj({
    Type: 'OutputIntent',
    S: 'GTS_PDFA1',
    OutputConditionIdentifier: PDFString.of(SRGB),
    Info: PDFString.of(SRGB),
    RegistryName: PDFString.of('http://www.color.org'),
    DestOutputProfile: profile,
  });
  doc.catalog.set(PDFName.of('OutputIntents'), doc.context.obj([doc.context.register(intent)]));
}

/** Makes the document PDF/A-2b or -3b and claims it in the XMP. */
export function makePdfA(doc: PDFDocument, level: PdfALevel): void {
  // ISO 19005-2 6.1.2: a %PDF-1.n header with n from 0 to 7 (pdf-lib writes the binary comment after it).
  doc.context.header = PDFHeader.forVersion(1, 7);
  removeForbiddenActions(doc);
  showAnnotations(doc);
  noInterpolation(doc);
  srgbOutputIntent(doc);
  syncXmp(doc, { pdfa: { part: pdfaPart(level), conformance: 'B' } });
}
