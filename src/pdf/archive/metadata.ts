// The document's description: the Info dictionary and the XMP packet, kept in agreement (ISO 19005-2 6.6.3:
// every Info entry with an XMP equivalent has the same value there). Each step that changes either calls
// syncXmp, which rewrites the packet from the Info dictionary and the claims already made.
import {
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
  decodePDFRawStream,
} from 'pdf-lib';
import type { PdfMetadata } from '../../domain/pdf-spec.js';
import { invalidRequest, type ErrorDetail } from '../../errors.js';
import { buildXmp, isXmlName, parseClaims, type ArchiveClaims, type XmpInfo } from './xmp.js';

/** The Info keys ISO 32000 defines; any other key is a custom one. */
const STANDARD_KEYS = [
  'Title',
  'Author',
  'Subject',
  'Keywords',
  'Creator',
  'Producer',
  'CreationDate',
  'ModDate',
  'Trapped',
];

const TEXT_FIELDS = {
  title: 'Title',
  author: 'Author',
  subject: 'Subject',
  keywords: 'Keywords',
  creator: 'Creator',
  producer: 'Producer',
} as const;

/** The trailer's Info dictionary, made when the PDF has none. */
export function infoDict(doc: PDFDocument): PDFDict {
  const existing = doc.context.trailerInfo.Info;
  const found = existing && doc.context.lookup(existing);
  if (found instanceof PDFDict) return found;
  const info = doc.context.obj({});
  doc.context.trailerInfo.Info = doc.context.register(info);
  return info;
}

/** A PDF date string in UTC ("D:20260101120000Z"): one instant, written the way its XMP twin is. */
export const pdfDate = (date: Date): PDFString =>
  PDFString.of(
    `D:${date
      .toISOString()
      .replace(/[-:T]/g, '')
      .replace(/\.\d{3}Z$/, '')}Z`,
  );

function textOf(value: unknown): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}

function dateOf(value: unknown): Date | undefined {
  if (!(value instanceof PDFString || value instanceof PDFHexString)) return undefined;
  try {
    const date = value.decodeDate();
    return Number.isNaN(date.getTime()) ? undefined : date;
  } catch {
    return undefined;
  }
}

/** The Info dictionary as the XMP mirrors it. Dates are rewritten in the one form both sides share. */
function readInfo(doc: PDFDocument): XmpInfo {
  const info = infoDict(doc);
  const get = (key: string) => info.lookup(PDFName.of(key));
  const dates = { creationDate: dateOf(get('CreationDate')), modDate: dateOf(get('ModDate')) };
  // An unreadable date has no XMP value to agree with: it goes, rather than contradict the packet.
  for (const [field, key] of [
    ['creationDate', 'CreationDate'],
    ['modDate', 'ModDate'],
  ] as const) {
    const date = dates[field];
    if (date) info.set(PDFName.of(key), pdfDate(date));
    else info.delete(PDFName.of(key));
  }
  const custom: Record<string, string> = {};
  for (const [name, value] of info.entries()) {
    const key = name.decodeText();
    const text = textOf(doc.context.lookup(value));
    // A key that is no XML name cannot be an XMP property; PDF/A asks agreement only of the standard keys.
    if (!STANDARD_KEYS.includes(key) && text !== undefined && isXmlName(key)) custom[key] = text;
  }
  return {
    title: textOf(get('Title')),
    author: textOf(get('Author')),
    subject: textOf(get('Subject')),
    keywords: textOf(get('Keywords')),
    creator: textOf(get('Creator')),
    producer: textOf(get('Producer')),
    ...dates,
    custom,
  };
}

/** The XMP packet of the catalog's /Metadata, if any, as text. */
export function readXmp(doc: PDFDocument): string | undefined {
  const stream = doc.catalog.lookup(PDFName.of('Metadata'));
  if (!(stream instanceof PDFStream)) return undefined;
  const bytes = stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents();
  return new TextDecoder().decode(bytes);
}

/**
 * Rewrites the XMP packet from the Info dictionary, keeping the claims the packet already makes and adding
 * `add`. Stored uncompressed (ISO 19005-1 6.7.2 forbids a filter on it; later parts allow one, and plain
 * text is what metadata readers expect).
 */
export function syncXmp(doc: PDFDocument, add: ArchiveClaims = {}): void {
  const before = readXmp(doc);
  const claims = { ...(before ? parseClaims(before) : {}), ...add };
  const kept: ArchiveClaims = { pdfa: claims.pdfa, pdfua: claims.pdfua, facturx: claims.facturx };
  const xmp = buildXmp(readInfo(doc), kept);
  const stream = doc.context.stream(new TextEncoder().encode(xmp), { Type: 'Metadata', Subtype: 'XML' });
  // The packet replaces the old one in place: no orphan packet is left behind in the saved file.
  const ref = doc.catalog.get(PDFName.of('Metadata'));
  if (ref instanceof PDFRef) doc.context.assign(ref, stream);
  else doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
}

/** A custom key must be an XML name (it becomes an XMP property) and not one of the keys the fields set. */
export function checkMetadata(meta: PdfMetadata, path = 'metadata'): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const key of Object.keys(meta.custom ?? {})) {
    if (!isXmlName(key))
      problems.push({
        path: `${path}.custom.${key}`,
        message: 'a custom key must start with a letter or _ and hold only letters, digits, ".", "_" and "-"',
      });
    else if (STANDARD_KEYS.includes(key))
      problems.push({ path: `${path}.custom.${key}`, message: `${key} is a standard key: set it with its own field` });
  }
  for (const field of ['creationDate', 'modificationDate'] as const) {
    const value = meta[field];
    if (value !== undefined && Number.isNaN(Date.parse(value)))
      problems.push({ path: `${path}.${field}`, message: 'must be an ISO 8601 date-time' });
  }
  return problems;
}

/**
 * Writes the given fields to the Info dictionary (and /Lang to the catalog), ModDate to `now` unless given,
 * then the XMP from the result. Fields not given keep what the PDF had (Chromium's /Title from <title>).
 */
export function applyMetadata(doc: PDFDocument, meta: PdfMetadata, now: Date): void {
  const problems = checkMetadata(meta);
  if (problems.length > 0) throw invalidRequest('The metadata cannot be written as given.', problems);
  const info = infoDict(doc);
  for (const [field, key] of Object.entries(TEXT_FIELDS) as [keyof typeof TEXT_FIELDS, string][]) {
    const value = meta[field];
    if (value !== undefined) info.set(PDFName.of(key), PDFHexString.fromText(value));
  }
  for (const [key, value] of Object.entries(meta.custom ?? {})) info.set(PDFName.of(key), PDFHexString.fromText(value));
  if (meta.creationDate !== undefined) info.set(PDFName.of('CreationDate'), pdfDate(new Date(meta.creationDate)));
  else if (!info.has(PDFName.of('CreationDate'))) info.set(PDFName.of('CreationDate'), pdfDate(now));
  info.set(PDFName.of('ModDate'), pdfDate(meta.modificationDate !== undefined ? new Date(meta.modificationDate) : now));
  if (meta.language !== undefined) doc.catalog.set(PDFName.of('Lang'), PDFHexString.fromText(meta.language));
  syncXmp(doc);
}

/** The document's title and language as a reader finds them (Info /Title, catalog /Lang). */
export function titleAndLanguage(doc: PDFDocument): { title?: string; language?: string } {
  const title = textOf(infoDict(doc).lookup(PDFName.of('Title')))?.trim();
  const language = textOf(doc.catalog.lookup(PDFName.of('Lang')))?.trim();
  return { title: title || undefined, language: language || undefined };
}

/** The conformance the XMP claims, as /api/pdf/metadata reports it: "PDF/A-3b", "PDF/UA-1". */
export function readArchiveClaims(source: PDFDocument | string): { pdfa?: string; pdfua?: string } {
  const xmp = typeof source === 'string' ? source : readXmp(source);
  const claims = xmp === undefined ? {} : parseClaims(xmp);
  return {
    pdfa: claims.pdfa && `PDF/A-${claims.pdfa.part}${claims.pdfa.conformance.toLowerCase()}`,
    pdfua: claims.pdfua === undefined ? undefined : `PDF/UA-${claims.pdfua}`,
  };
}
