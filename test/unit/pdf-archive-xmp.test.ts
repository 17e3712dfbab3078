// The XMP packet and the invoice checks on their own (no PDF, no external program): escaping of hostile
// values, the claims read back from packets written by us and by others, and the Factur-X profile names.
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { checkInvoiceXml, FACTURX_PROFILES, invoiceLevel, readArchiveClaims } from '../../src/pdf/archive/index.js';
import { buildXmp, escapeXml } from '../../src/pdf/archive/xmp.js';

const CII = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';

describe('XMP packet', () => {
  it('stays well formed, whatever the values hold', () => {
    const hostile = '</rdf:li></dc:title><x:evil/>&amp;<![CDATA[ ]]>\u0000\u0007"\'<?xpacket end="w"?>';
    const xmp = buildXmp(
      { title: hostile, author: hostile, subject: hostile, keywords: hostile, custom: { Note: hostile } },
      {
        pdfa: { part: 3, conformance: 'B' },
        pdfua: 1,
        facturx: { documentFileName: 'factur-x.xml', conformanceLevel: 'EN 16931' },
      },
    );
    expect(XMLValidator.validate(xmp)).toBe(true);
    expect(xmp).not.toContain('<x:evil/>');
    // Only the packet's own end marker.
    expect(xmp.match(/<\?xpacket end/g)).toHaveLength(1);
  });

  it('drops characters XML 1.0 cannot carry and escapes the five markup characters', () => {
    expect(escapeXml('a\u0000b\u001fc\td\n<&>"\'')).toBe('abc\td\n&lt;&amp;&gt;&quot;&apos;');
  });

  it('claims read back as /api/pdf/metadata reports them', () => {
    const ours = buildXmp({ custom: {} }, { pdfa: { part: 2, conformance: 'B' }, pdfua: 1 });
    expect(readArchiveClaims(ours)).toEqual({ pdfa: 'PDF/A-2b', pdfua: 'PDF/UA-1' });
    // Another producer's packet, with the claims as attributes.
    const theirs =
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
      '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="3" pdfaid:conformance="A"/>' +
      '</rdf:RDF></x:xmpmeta>';
    expect(readArchiveClaims(theirs)).toEqual({ pdfa: 'PDF/A-3a', pdfua: undefined });
    expect(readArchiveClaims(buildXmp({ custom: {} }, {}))).toEqual({ pdfa: undefined, pdfua: undefined });
  });
});

describe('Factur-X profiles', () => {
  it('accepts the Factur-X names and the ZUGFeRD aliases, in any case', () => {
    expect(invoiceLevel('comfort')).toEqual({
      level: 'EN 16931',
      fileName: 'factur-x.xml',
      relationship: 'Alternative',
    });
    expect(invoiceLevel('basic-wl')).toEqual({ level: 'BASIC WL', fileName: 'factur-x.xml', relationship: 'Data' });
    expect(invoiceLevel('XRechnung')?.fileName).toBe('xrechnung.xml');
    expect(invoiceLevel('PLATINUM')).toBeUndefined();
    for (const name of FACTURX_PROFILES) expect(invoiceLevel(name), name).toBeDefined();
  });
});

describe('invoice XML', () => {
  it('accepts the CII root under any prefix, or as the default namespace', () => {
    expect(checkInvoiceXml(Buffer.from(`<rsm:CrossIndustryInvoice xmlns:rsm="${CII}"/>`))).toEqual([]);
    expect(
      checkInvoiceXml(Buffer.from(`<inv:CrossIndustryInvoice xmlns:inv="${CII}"></inv:CrossIndustryInvoice>`)),
    ).toEqual([]);
    expect(checkInvoiceXml(Buffer.from(`<CrossIndustryInvoice xmlns="${CII}"/>`))).toEqual([]);
  });

  it('refuses text that is not UTF-8, and an empty document', () => {
    expect(checkInvoiceXml(Buffer.from([0x3c, 0x61, 0xff, 0x3e]))).toEqual([
      { path: 'facturx.xml', message: 'is not UTF-8 text' },
    ]);
    expect(checkInvoiceXml(Buffer.from(''))[0]?.path).toBe('facturx.xml');
  });

  it('refuses the right local name in the wrong namespace, and the right namespace on another element', () => {
    expect(checkInvoiceXml(Buffer.from('<rsm:CrossIndustryInvoice xmlns:rsm="urn:x"/>'))[0]?.message).toMatch(
      /root element/,
    );
    expect(checkInvoiceXml(Buffer.from(`<rsm:Invoice xmlns:rsm="${CII}"/>`))[0]?.message).toMatch(/root element/);
  });
});
