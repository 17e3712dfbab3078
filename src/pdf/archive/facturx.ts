// Factur-X 1.0 / ZUGFeRD 2.1+ e-invoices: the UN/CEFACT CII invoice XML attached to a PDF/A-3b with the
// Factur-X XMP schema. The XML is caller input: it is checked for well-formedness and its root element
// only (no DTD, so no entity expansion); whether its content meets the profile's rules (EN 16931
// schematron) is the caller's to check.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { PDFDocument } from 'pdf-lib';
import type { AfRelationship, PdfInvoice } from '../../domain/pdf-spec.js';
import { invalidRequest, type ErrorDetail } from '../../errors.js';
import { embedFile } from './attachments.js';
import { syncXmp } from './metadata.js';

export const CII_NAMESPACE = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
const CII_ROOT = 'CrossIndustryInvoice';

interface InvoiceLevel {
  /** fx:ConformanceLevel. */
  level: string;
  /** The attachment's name, fx:DocumentFileName. */
  fileName: string;
  /**
   * Factur-X 1.0 (the PDF/A-3 container chapter): MINIMUM and BASIC WL are not complete invoices, so
   * their XML is Data; from BASIC on the XML is an Alternative representation of the visible invoice.
   */
  relationship: AfRelationship;
}

const LEVELS: Record<string, InvoiceLevel> = {
  MINIMUM: { level: 'MINIMUM', fileName: 'factur-x.xml', relationship: 'Data' },
  'BASIC WL': { level: 'BASIC WL', fileName: 'factur-x.xml', relationship: 'Data' },
  BASIC: { level: 'BASIC', fileName: 'factur-x.xml', relationship: 'Alternative' },
  'EN 16931': { level: 'EN 16931', fileName: 'factur-x.xml', relationship: 'Alternative' },
  EXTENDED: { level: 'EXTENDED', fileName: 'factur-x.xml', relationship: 'Alternative' },
  // ZUGFeRD 2.1+: the XRechnung profile's XML is named xrechnung.xml, the XMP level XRECHNUNG.
  XRECHNUNG: { level: 'XRECHNUNG', fileName: 'xrechnung.xml', relationship: 'Alternative' },
};

/** ZUGFeRD 2.x and spelling variants of the same levels. */
const ALIASES: Record<string, string> = {
  EN16931: 'EN 16931',
  COMFORT: 'EN 16931',
  'BASIC-WL': 'BASIC WL',
  BASICWL: 'BASIC WL',
};

/** Every profile name accepted (the HTTP schema's enum), case-insensitively. */
export const FACTURX_PROFILES = [...Object.keys(LEVELS), ...Object.keys(ALIASES)] as [string, ...string[]];

/** The level a profile name stands for, or undefined. */
export function invoiceLevel(profile: string): InvoiceLevel | undefined {
  const name = profile.trim().toUpperCase();
  return LEVELS[ALIASES[name] ?? name];
}

/** What is wrong with an invoice XML, as details naming `path` (empty: it is well formed CII). */
export function checkInvoiceXml(xml: Buffer, path = 'facturx.xml'): ErrorDetail[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(xml);
  } catch {
    return [{ path, message: 'is not UTF-8 text' }];
  }
  // A DTD could declare entities that expand without bound; CII needs none.
  if (/<!DOCTYPE/i.test(text)) return [{ path, message: 'must not contain a DOCTYPE declaration' }];
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    return [
      { path, message: `is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})` },
    ];
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', processEntities: false }).parse(
    text,
  ) as Record<string, unknown>;
  const rootName = Object.keys(parsed).find((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (rootName === undefined) return [{ path, message: 'has no root element' }];
  const [prefix, local] = rootName.includes(':') ? rootName.split(':', 2) : [undefined, rootName];
  const root = parsed[rootName];
  const attrs = (typeof root === 'object' && root !== null ? root : {}) as Record<string, unknown>;
  const namespace = attrs[prefix === undefined ? '@xmlns' : `@xmlns:${prefix}`];
  if (local !== CII_ROOT || namespace !== CII_NAMESPACE)
    return [
      {
        path,
        message: `the root element must be rsm:CrossIndustryInvoice in the namespace ${CII_NAMESPACE}, not ${rootName}${typeof namespace === 'string' ? ` in ${namespace}` : ''}`,
      },
    ];
  return [];
}

/**
 * Attaches the invoice XML under its profile's file name and relationship, and claims the Factur-X XMP
 * schema. The caller makes the document PDF/A-3b (finishArchive forces it).
 */
export function attachInvoice(doc: PDFDocument, invoice: PdfInvoice, now: Date): void {
  const level = invoiceLevel(invoice.profile);
  if (!level)
    throw invalidRequest(`The Factur-X profile ${JSON.stringify(invoice.profile)} is not one we know.`, [
      { path: 'facturx.profile', message: `must be one of ${FACTURX_PROFILES.join(', ')}` },
    ]);
  const problems = checkInvoiceXml(invoice.xml);
  if (problems.length > 0) throw invalidRequest('The invoice XML is not a CII invoice.', problems);
  embedFile(
    doc,
    {
      name: level.fileName,
      contentType: 'text/xml',
      relationship: level.relationship,
      description: `Factur-X invoice (${level.level})`,
      bytes: invoice.xml,
    },
    now,
    'facturx',
  );
  syncXmp(doc, { facturx: { documentFileName: level.fileName, conformanceLevel: level.level } });
}
