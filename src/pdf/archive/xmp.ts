// The XMP metadata packet (ISO 16684-1) a PDF carries in its catalog's /Metadata: written whole from a model
// (the Info dictionary's values plus the conformance claims), never patched, so the Info dictionary and the
// XMP cannot drift apart. Every value is XML-escaped: titles, authors and custom keys are caller input.

/** What the PDF says it conforms to, as the XMP states it. */
export interface ArchiveClaims {
  /** pdfaid:part and pdfaid:conformance. */
  pdfa?: { part: number; conformance: string };
  /** pdfuaid:part. */
  pdfua?: number;
  /** The Factur-X / ZUGFeRD invoice schema (fx:). */
  facturx?: { documentFileName: string; conformanceLevel: string };
}

/** The values of the Info dictionary that have an XMP counterpart (ISO 19005-2 6.6.3, Table 2). */
export interface XmpInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  creator?: string;
  producer?: string;
  creationDate?: Date;
  modDate?: Date;
  /** Other Info keys, written under the pdfx namespace (each an XML name). */
  custom: Record<string, string>;
}

export const NS = {
  x: 'adobe:ns:meta/',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dc: 'http://purl.org/dc/elements/1.1/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  pdf: 'http://ns.adobe.com/pdf/1.3/',
  pdfx: 'http://ns.adobe.com/pdfx/1.3/',
  pdfaid: 'http://www.aiim.org/pdfa/ns/id/',
  pdfuaid: 'http://www.aiim.org/pdfua/ns/id/',
  fx: 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#',
  pdfaExtension: 'http://www.aiim.org/pdfa/ns/extension/',
  pdfaSchema: 'http://www.aiim.org/pdfa/ns/schema#',
  pdfaProperty: 'http://www.aiim.org/pdfa/ns/property#',
} as const;

/** The Factur-X XMP schema's fixed values (Factur-X 1.0, the XMP extension schema). */
export const FACTURX_DOCUMENT_TYPE = 'INVOICE';
export const FACTURX_VERSION = '1.0';

/** XML 1.0 character escaping for text and attribute values; characters XML cannot carry are dropped. */
export function escapeXml(value: string): string {
  return (
    value
      // eslint-disable-next-line no-control-regex -- XML 1.0's Char production: tab, LF and CR are allowed
      .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/** An XML name without a colon: what an XMP property name (and so a custom Info key we mirror) must be. */
export const isXmlName = (key: string): boolean => /^[A-Za-z_][A-Za-z0-9._-]*$/.test(key);

/** ISO 8601 in UTC to the second: the same instant the Info dictionary's PDF date string names. */
export const xmpDate = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

interface ExtensionProperty {
  name: string;
  valueType: 'Text' | 'Integer';
  category: 'internal' | 'external';
  description: string;
}

/**
 * PDF/A (ISO 19005-2 6.6.2.3.3) accepts XMP properties outside the predefined schemas only when the packet
 * describes them with the PDF/A extension schema; pdfuaid, fx and pdfx are not predefined in PDF/A-2/3.
 */
function extensionSchema(name: string, uri: string, prefix: string, properties: ExtensionProperty[]): string {
  const props = properties
    .map(
      (p) =>
        `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${escapeXml(p.name)}</pdfaProperty:name>` +
        `<pdfaProperty:valueType>${p.valueType}</pdfaProperty:valueType>` +
        `<pdfaProperty:category>${p.category}</pdfaProperty:category>` +
        `<pdfaProperty:description>${escapeXml(p.description)}</pdfaProperty:description></rdf:li>`,
    )
    .join('\n');
  return (
    `<rdf:li rdf:parseType="Resource"><pdfaSchema:schema>${name}</pdfaSchema:schema>` +
    `<pdfaSchema:namespaceURI>${escapeXml(uri)}</pdfaSchema:namespaceURI>` +
    `<pdfaSchema:prefix>${prefix}</pdfaSchema:prefix>` +
    `<pdfaSchema:property><rdf:Seq>\n${props}\n</rdf:Seq></pdfaSchema:property></rdf:li>`
  );
}

const element = (name: string, value: string | undefined): string =>
  value === undefined ? '' : `<${name}>${escapeXml(value)}</${name}>\n`;
const alt = (name: string, value: string | undefined): string =>
  value === undefined
    ? ''
    : `<${name}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(value)}</rdf:li></rdf:Alt></${name}>\n`;

/** The whole XMP packet for these Info values and claims. */
export function buildXmp(info: XmpInfo, claims: ArchiveClaims): string {
  const d = (prefixes: (keyof typeof NS)[], body: string): string =>
    body === ''
      ? ''
      : `<rdf:Description rdf:about="" ${prefixes.map((p) => `xmlns:${p}="${NS[p]}"`).join(' ')}>\n${body}</rdf:Description>\n`;

  const descriptions = [
    d(
      ['dc'],
      alt('dc:title', info.title) +
        (info.author === undefined
          ? ''
          : `<dc:creator><rdf:Seq><rdf:li>${escapeXml(info.author)}</rdf:li></rdf:Seq></dc:creator>\n`) +
        alt('dc:description', info.subject),
    ),
    d(
      ['xmp'],
      element('xmp:CreatorTool', info.creator) +
        element('xmp:CreateDate', info.creationDate && xmpDate(info.creationDate)) +
        element('xmp:ModifyDate', info.modDate && xmpDate(info.modDate)) +
        element('xmp:MetadataDate', info.modDate && xmpDate(info.modDate)),
    ),
    d(['pdf'], element('pdf:Keywords', info.keywords) + element('pdf:Producer', info.producer)),
    d(
      ['pdfx'],
      Object.entries(info.custom)
        .map(([k, v]) => element(`pdfx:${k}`, v))
        .join(''),
    ),
    d(
      ['pdfaid'],
      claims.pdfa
        ? element('pdfaid:part', String(claims.pdfa.part)) + element('pdfaid:conformance', claims.pdfa.conformance)
        : '',
    ),
    d(['pdfuaid'], claims.pdfua ? element('pdfuaid:part', String(claims.pdfua)) : ''),
    d(
      ['fx'],
      claims.facturx
        ? element('fx:DocumentType', FACTURX_DOCUMENT_TYPE) +
            element('fx:DocumentFileName', claims.facturx.documentFileName) +
            element('fx:Version', FACTURX_VERSION) +
            element('fx:ConformanceLevel', claims.facturx.conformanceLevel)
        : '',
    ),
  ];

  const schemas: string[] = [];
  if (claims.pdfua)
    schemas.push(
      extensionSchema('PDF/UA Universal Accessibility Schema', NS.pdfuaid, 'pdfuaid', [
        { name: 'part', valueType: 'Integer', category: 'internal', description: 'Part of ISO 14289 standard' },
      ]),
    );
  if (claims.facturx)
    schemas.push(
      extensionSchema('Factur-X PDFA Extension Schema', NS.fx, 'fx', [
        {
          name: 'DocumentFileName',
          valueType: 'Text',
          category: 'external',
          description: 'Name of the embedded XML invoice file',
        },
        { name: 'DocumentType', valueType: 'Text', category: 'external', description: 'INVOICE' },
        { name: 'Version', valueType: 'Text', category: 'external', description: 'Version of the Factur-X XML schema' },
        {
          name: 'ConformanceLevel',
          valueType: 'Text',
          category: 'external',
          description: 'Conformance level of the invoice data',
        },
      ]),
    );
  const customKeys = Object.keys(info.custom);
  if (customKeys.length > 0)
    schemas.push(
      extensionSchema(
        'Adobe PDF Extension Schema',
        NS.pdfx,
        'pdfx',
        customKeys.map((name) => ({ name, valueType: 'Text', category: 'external', description: 'Custom Info key' })),
      ),
    );
  if (schemas.length > 0)
    descriptions.push(
      d(
        ['pdfaExtension', 'pdfaSchema', 'pdfaProperty'],
        `<pdfaExtension:schemas><rdf:Bag>\n${schemas.join('\n')}\n</rdf:Bag></pdfaExtension:schemas>\n`,
      ),
    );

  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    `<x:xmpmeta xmlns:x="${NS.x}">\n<rdf:RDF xmlns:rdf="${NS.rdf}">\n` +
    descriptions.join('') +
    '</rdf:RDF>\n</x:xmpmeta>\n' +
    // Room to edit the packet in place, as XMP writers leave it.
    `${' '.repeat(99)}\n`.repeat(20) +
    '<?xpacket end="w"?>'
  );
}

/** A simple property's value, written as an element or as an attribute of rdf:Description. */
function property(xmp: string, qname: string): string | undefined {
  const q = qname.replace('.', '\\.');
  // One run of non-"<" characters, trimmed after: spaces on both sides of a lazy group would backtrack
  // quadratically on an uploaded PDF's XMP with a long run of spaces and no closing tag.
  const m = new RegExp(`<${q}>([^<]*)</${q}>|\\b${q}\\s*=\\s*["']([^"']*)["']`).exec(xmp);
  return m ? (m[1]?.trim() ?? m[2]) : undefined;
}

/**
 * The claims an XMP packet makes, read with the customary prefixes (pdfaid, pdfuaid, fx), which every
 * producer we know of uses.
 */
export function parseClaims(xmp: string): ArchiveClaims {
  const claims: ArchiveClaims = {};
  const part = Number(property(xmp, 'pdfaid:part'));
  const conformance = property(xmp, 'pdfaid:conformance');
  if (Number.isInteger(part) && part > 0) {
    claims.pdfa = { part, conformance: conformance ?? '' };
  }
  const ua = Number(property(xmp, 'pdfuaid:part'));
  if (Number.isInteger(ua) && ua > 0) {
    claims.pdfua = ua;
  }
  const fileName = property(xmp, 'fx:DocumentFileName');
  const level = property(xmp, 'fx:ConformanceLevel');
  if (fileName !== undefined && level !== undefined)
    claims.facturx = { documentFileName: fileName, conformanceLevel: level };
  return claims;
}
