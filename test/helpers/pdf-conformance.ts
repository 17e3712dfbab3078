// The PDF/A, PDF/UA and Factur-X clauses the archive steps rely on, checked on a PDF file with the tools a
// reader of the file would use: qpdf --json (the objects), pdfinfo (Info and XMP as poppler reads them),
// pdffonts (embedded, ToUnicode) and pdfdetach (attachments back, byte for byte). It is not a full
// validator (no veraPDF here): docs/pdf-conformance.md lists what it checks and what it does not.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XMLValidator } from 'fast-xml-parser';

const run = promisify(execFile);

type Json = unknown;
type Dict = Record<string, Json>;

export interface ConformanceExpectation {
  pdfa?: 'PDF/A-2b' | 'PDF/A-3b';
  pdfua?: boolean;
  /** The structure element types (/S) of the input, as structureTypes() counted them. */
  structureBefore?: Record<string, number>;
  /** The Info values the caller set, checked as written (title, author...). */
  /** Given when metadata was set: the XMP is then required. */
  info?: Record<string, string>;
  facturx?: { xml: Buffer; fileName: string; relationship: string; level: string };
  /** Attachments expected by name, with their bytes and relationship. */
  attachments?: { name: string; bytes: Buffer; relationship: string; contentType: string }[];
}

/** The PDF's objects as qpdf --json gives them: id "obj:N G R" → value (or stream dict), plus the trailer. */
export interface PdfObjects {
  trailer: Dict;
  get(ref: Json): Json;
  /** Every object's value (a stream: its dictionary). */
  all(): Json[];
}

async function withFile<T>(bytes: Uint8Array, use: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pagewatch-conformance-'));
  try {
    const file = join(dir, 'in.pdf');
    await writeFile(file, bytes);
    return await use(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function pdfObjects(bytes: Uint8Array): Promise<PdfObjects> {
  const { stdout } = await withFile(bytes, (file) =>
    run('qpdf', ['--json', '--json-key=qpdf', file], { maxBuffer: 64 << 20 }),
  );
  const objects = (JSON.parse(stdout) as { qpdf: [unknown, Record<string, { value?: Json; stream?: { dict: Json } }>] })
    .qpdf[1];
  const valueOf = (entry: { value?: Json; stream?: { dict: Json } } | undefined): Json =>
    entry?.value ?? entry?.stream?.dict;
  return {
    trailer: valueOf(objects.trailer) as Dict,
    all: () => Object.values(objects).map(valueOf),
    get(ref: Json): Json {
      return typeof ref === 'string' && /^\d+ \d+ R$/.test(ref) ? valueOf(objects[`obj:${ref}`]) : ref;
    },
  };
}

const dict = (value: Json): Dict | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Dict) : undefined;

/** A qpdf JSON string ("u:text" or "b:hex") as text. */
export function pdfText(value: Json): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('u:')) return value.slice(2);
  if (value.startsWith('b:')) return Buffer.from(value.slice(2), 'hex').toString('latin1');
  return undefined;
}

/** The structure element types under the StructTreeRoot, counted (a multiset). */
export function structureTypes(pdf: PdfObjects): Record<string, number> {
  const root = dict(pdf.get(dict(pdf.get(pdf.trailer['/Root']))?.['/StructTreeRoot']));
  const counts: Record<string, number> = {};
  const seen = new Set<string>();
  const walk = (node: Json): void => {
    if (typeof node === 'string' && seen.has(node)) return;
    if (typeof node === 'string') seen.add(node);
    const value = pdf.get(node);
    if (Array.isArray(value)) return value.forEach(walk);
    const d = dict(value);
    if (!d) return;
    if (typeof d['/S'] === 'string' && d['/Type'] !== '/MCR' && d['/Type'] !== '/OBJR') {
      counts[d['/S']] = (counts[d['/S']] ?? 0) + 1;
    }
    if (d['/K'] !== undefined) walk(d['/K']);
  };
  if (root) walk(root['/K']);
  return counts;
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');
}

/** A property of the XMP: a simple element, or the first rdf:li of an Alt/Seq/Bag. */
export function xmpValue(xmp: string, qname: string): string | undefined {
  const m = new RegExp(`<${qname}>([\\s\\S]*?)</${qname}>`).exec(xmp);
  if (!m) return undefined;
  const li = /<rdf:li[^>]*>([\s\S]*?)<\/rdf:li>/.exec(m[1]!);
  return unescapeXml((li ? li[1]! : m[1]!).trim());
}

/** A PDF date string as an instant (ISO 8601, UTC, to the second). */
function pdfDateIso(value: string | undefined): string | undefined {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(value ?? '');
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz = 'Z'] = m;
  const offset = tz === 'Z' ? 'Z' : `${tz.slice(0, 3)}:${tz.replace(/'/g, '').slice(3, 5)}`;
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const xmpDateIso = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** ISO 19005-2 6.6.3 (Table 2): Info key ↔ XMP property. */
const INFO_XMP: [string, string, 'text' | 'date'][] = [
  ['/Title', 'dc:title', 'text'],
  ['/Author', 'dc:creator', 'text'],
  ['/Subject', 'dc:description', 'text'],
  ['/Keywords', 'pdf:Keywords', 'text'],
  ['/Creator', 'xmp:CreatorTool', 'text'],
  ['/Producer', 'pdf:Producer', 'text'],
  ['/CreationDate', 'xmp:CreateDate', 'date'],
  ['/ModDate', 'xmp:ModifyDate', 'date'],
];

const FORBIDDEN_ACTIONS = [
  '/Launch',
  '/Sound',
  '/Movie',
  '/ResetForm',
  '/ImportData',
  '/Hide',
  '/SetOCGState',
  '/Rendition',
  '/Trans',
  '/GoTo3DView',
  '/JavaScript',
];

/**
 * Every clause the PDF breaks, each as "<clause>: <what>". An empty list: all the checked clauses hold.
 * The trailer /ID, fonts, Info ↔ XMP agreement and the absence of Encrypt/JavaScript/Launch are checked
 * for any expectation; the rest as the expectation asks.
 */
export async function conformanceFailures(bytes: Uint8Array, want: ConformanceExpectation): Promise<string[]> {
  const failures: string[] = [];
  const fail = (clause: string, what: string) => failures.push(`${clause}: ${what}`);
  const pdf = await pdfObjects(bytes);
  const catalog = dict(pdf.get(pdf.trailer['/Root'])) ?? {};
  const info = dict(pdf.get(pdf.trailer['/Info'])) ?? {};
  const archival = want.pdfa !== undefined;

  // File structure.
  if (!Array.isArray(pdf.trailer['/ID']) || (pdf.trailer['/ID'] as Json[]).length !== 2)
    fail('ISO 19005-2 6.1.3 (trailer /ID)', 'the trailer has no /ID of two strings');
  if (pdf.trailer['/Encrypt'] !== undefined) fail('ISO 19005-2 6.1.3 (no Encrypt)', 'the file is encrypted');
  const header = Buffer.from(bytes.subarray(0, 16)).toString('latin1');
  if (archival && !/^%PDF-1\.[0-7]/.test(header))
    fail('ISO 19005-2 6.1.2 (header)', `header is ${header.split('\n')[0]}`);

  // The XMP packet, as pdfinfo reads it.
  const { xmp, infoText, fonts, attachments } = await withFile(bytes, async (file, dir) => {
    const meta = (await run('pdfinfo', ['-meta', file])).stdout;
    const infoOut = (await run('pdfinfo', [file])).stdout;
    const fontsOut = (await run('pdffonts', [file])).stdout;
    const list = (await run('pdfdetach', ['-list', file])).stdout;
    const names = list
      .split('\n')
      .slice(1)
      .map((l) => /^\d+: (.*)$/.exec(l)?.[1])
      .filter((n): n is string => n !== undefined);
    const saved: Record<string, Buffer> = {};
    for (let i = 0; i < names.length; i++) {
      const out = join(dir, `attachment-${i + 1}`);
      await run('pdfdetach', ['-save', String(i + 1), '-o', out, file]);
      saved[names[i]!] = await readFile(out);
    }
    return { xmp: meta, infoText: infoOut, fonts: fontsOut, attachments: saved };
  });
  const metadataStream = dict(pdf.get(catalog['/Metadata']));
  const hasXmp = xmp.includes('<x:xmpmeta');
  // XMP is required by PDF/A, PDF/UA, Factur-X and the metadata option; any packet present must agree.
  const needsXmp = archival || want.pdfua || want.facturx || want.info;
  if (!hasXmp && !needsXmp) {
    // Nothing to agree with.
  } else if (!hasXmp || metadataStream?.['/Subtype'] !== '/XML' || metadataStream?.['/Type'] !== '/Metadata') {
    fail('ISO 19005-2 6.6.2.1 (metadata stream)', 'the catalog has no /Metadata /Type /Metadata /Subtype /XML');
  } else {
    const valid = XMLValidator.validate(xmp.trim());
    if (valid !== true) fail('ISO 19005-2 6.6.2.1 (well-formed XMP)', valid.err.msg);
    if (/<\?xpacket[^>]*\b(bytes|encoding)=/.test(xmp))
      fail('ISO 19005-2 6.6.2.1 (xpacket header)', 'bytes or encoding attribute in the xpacket header');
    for (const [key, property, kind] of INFO_XMP) {
      const fromInfo = pdfText(info[key]);
      const fromXmp = xmpValue(xmp, property);
      const a = kind === 'date' ? pdfDateIso(fromInfo) : fromInfo;
      const b = kind === 'date' ? xmpDateIso(fromXmp) : fromXmp;
      if (a !== b)
        fail(
          `ISO 19005-2 6.6.3 (${key.slice(1)} ↔ ${property})`,
          `Info ${JSON.stringify(a)} ≠ XMP ${JSON.stringify(b)}`,
        );
    }
  }
  for (const [field, value] of Object.entries(want.info ?? {})) {
    const line = new RegExp(`^${field}:\\s+(.*)$`, 'mi').exec(infoText)?.[1];
    if (line !== value) fail('metadata', `pdfinfo ${field} is ${JSON.stringify(line)}, not ${JSON.stringify(value)}`);
  }

  // Claims.
  const part = xmpValue(xmp, 'pdfaid:part');
  const conformance = xmpValue(xmp, 'pdfaid:conformance');
  if (want.pdfa) {
    const wantPart = want.pdfa === 'PDF/A-2b' ? '2' : '3';
    if (part !== wantPart || conformance !== 'B')
      fail('ISO 19005-2 6.6.4 (pdfaid)', `XMP claims part ${part} conformance ${conformance}, not ${wantPart} B`);
  } else if (part !== undefined) fail('ISO 19005-2 6.6.4 (pdfaid)', `claims PDF/A-${part} though none was asked for`);
  const uaPart = xmpValue(xmp, 'pdfuaid:part');
  if (want.pdfua && uaPart !== '1') fail('ISO 14289-1 5 (pdfuaid, Matterhorn 06-002)', `pdfuaid:part is ${uaPart}`);
  if (!want.pdfua && uaPart !== undefined) fail('ISO 14289-1 5 (pdfuaid)', 'claims PDF/UA though none was asked for');
  const extensions = xmpValue(xmp, 'pdfaExtension:schemas') !== undefined ? xmp : '';
  if (archival && uaPart !== undefined && !extensions.includes('<pdfaSchema:prefix>pdfuaid</pdfaSchema:prefix>'))
    fail('ISO 19005-2 6.6.2.3.1 (extension schema)', 'pdfuaid is used without a PDF/A extension schema');

  // Output intent.
  if (archival) {
    const intents = pdf.get(catalog['/OutputIntents']);
    const intent = Array.isArray(intents) ? dict(pdf.get(intents[0])) : undefined;
    const profile = dict(pdf.get(intent?.['/DestOutputProfile']));
    if (!intent || intent['/S'] !== '/GTS_PDFA1' || !profile || profile['/N'] !== 3 || (intents as Json[]).length !== 1)
      fail(
        'ISO 19005-2 6.2.3 (output intent)',
        'no single GTS_PDFA1 output intent with an embedded 3-component ICC profile',
      );
  }

  // Fonts: every one embedded, with a ToUnicode map.
  const fontLines = fonts
    .split('\n')
    .slice(2)
    .filter((l) => l.trim() !== '');
  if (fontLines.length === 0) fail('fonts', 'pdffonts lists no font (the page has text)');
  for (const line of fontLines) {
    const [emb, , uni] = line.slice(71).trim().split(/\s+/);
    if (emb !== 'yes') fail('ISO 19005-2 6.2.11.4 (embedded fonts)', `not embedded: ${line.slice(0, 54).trim()}`);
    if (uni !== 'yes')
      fail('ISO 19005-2 6.2.11.7 / ISO 14289-1 7.21.7 (ToUnicode)', `no ToUnicode: ${line.slice(0, 54).trim()}`);
  }

  // Actions, annotations, every object.
  for (const value of pdf.all()) {
    const d = dict(value);
    if (!d) continue;
    if (FORBIDDEN_ACTIONS.includes(String(d['/S'])) && d['/Type'] !== '/StructElem')
      fail('ISO 19005-2 6.6.1 (actions)', `a ${String(d['/S'])} action`);
    if (d['/JS'] !== undefined) fail('ISO 19005-2 6.6.1 (actions)', 'JavaScript');
    if (archival && d['/AA'] !== undefined) fail('ISO 19005-2 6.6.2 (additional actions)', 'an /AA entry');
    if (archival && d['/Type'] === '/Annot') {
      const flags = typeof d['/F'] === 'number' ? d['/F'] : 0;
      if ((flags & 4) === 0 || (flags & (1 | 2 | 32)) !== 0)
        fail('ISO 19005-2 6.3.2 (annotation flags)', `annotation ${String(d['/Subtype'])} has /F ${flags}`);
    }
    if (want.pdfua && d['/Subtype'] === '/Link' && pdfText(d['/Contents']) === undefined)
      fail('ISO 14289-1 7.18.5 (link description)', 'a link annotation without /Contents');
    if (want.pdfua && Array.isArray(d['/Annots']) && d['/Annots'].length > 0 && d['/Tabs'] !== '/S')
      fail('ISO 14289-1 7.18.3 (tab order)', 'a page with annotations without /Tabs /S');
    if (archival && d['/Subtype'] === '/Image' && d['/Interpolate'] === true)
      fail('ISO 19005-2 6.2.8 (Interpolate)', 'an image with /Interpolate true');
  }
  const names = dict(pdf.get(catalog['/Names']));
  if (names?.['/JavaScript'] !== undefined)
    fail('ISO 19005-2 6.6.1 (actions)', 'a document-level JavaScript name tree');

  // Tags, language, title display.
  const markInfo = dict(pdf.get(catalog['/MarkInfo']));
  if (markInfo?.['/Marked'] !== true) fail('ISO 14289-1 7.1 (MarkInfo)', 'MarkInfo Marked is not true');
  if (catalog['/StructTreeRoot'] === undefined) fail('ISO 14289-1 7.1 (StructTreeRoot)', 'no structure tree');
  if (want.structureBefore) {
    const after = structureTypes(pdf);
    if (JSON.stringify(sorted(after)) !== JSON.stringify(sorted(want.structureBefore)))
      fail(
        'structure tree kept',
        `types before ${JSON.stringify(sorted(want.structureBefore))}, after ${JSON.stringify(sorted(after))}`,
      );
  }
  if (!pdfText(catalog['/Lang'])) fail('ISO 14289-1 7.2 (/Lang)', 'the catalog has no /Lang');
  if (want.pdfua) {
    const prefs = dict(pdf.get(catalog['/ViewerPreferences']));
    if (prefs?.['/DisplayDocTitle'] !== true) fail('ISO 14289-1 7.1 (DisplayDocTitle, Matterhorn 07-001)', 'not true');
    if (!xmpValue(xmp, 'dc:title')) fail('ISO 14289-1 7.1 (dc:title, Matterhorn 06-003)', 'the XMP has no dc:title');
  }

  // Attachments: name tree, /AF, file spec, stream, bytes back.
  const af = (pdf.get(catalog['/AF']) as Json[] | undefined) ?? [];
  const specs = af.map((ref) => dict(pdf.get(ref)) ?? {});
  const expected = [
    ...(want.attachments ?? []),
    ...(want.facturx
      ? [
          {
            name: want.facturx.fileName,
            bytes: want.facturx.xml,
            relationship: want.facturx.relationship,
            contentType: 'text/xml',
          },
        ]
      : []),
  ];
  if (Object.keys(attachments).length !== expected.length)
    fail('attachments', `pdfdetach lists ${Object.keys(attachments).length}, expected ${expected.length}`);
  for (const file of expected) {
    const back = attachments[file.name];
    if (!back || !back.equals(file.bytes)) fail('attachments', `${file.name} does not read back byte for byte`);
    const spec = specs.find((s) => pdfText(s['/UF']) === file.name);
    if (!spec) {
      fail('ISO 19005-3 6.8 (catalog /AF)', `${file.name} is not in the catalog's /AF`);
      continue;
    }
    if (spec['/AFRelationship'] !== `/${file.relationship}`)
      fail('ISO 19005-3 6.8 (AFRelationship)', `${file.name} is ${String(spec['/AFRelationship'])}`);
    if (pdfText(spec['/F']) === undefined || pdfText(spec['/Desc']) === undefined)
      fail('ISO 19005-3 6.8 (file specification)', `${file.name} lacks /F or /Desc`);
    const stream = dict(pdf.get(dict(spec['/EF'])?.['/F']));
    const params = dict(stream?.['/Params']);
    if (stream?.['/Subtype'] !== `/${file.contentType}`)
      fail('ISO 19005-3 6.8 (MIME type)', `${file.name} /Subtype is ${String(stream?.['/Subtype'])}`);
    if (!params || params['/Size'] !== file.bytes.length || pdfText(params['/ModDate']) === undefined)
      fail('ISO 19005-3 6.8 (Params)', `${file.name} lacks /Params /Size or /ModDate`);
  }
  if (want.pdfa === 'PDF/A-2b' && Object.keys(attachments).length > 0)
    fail('ISO 19005-2 6.8 (embedded files)', 'PDF/A-2b with an attachment');

  // Factur-X XMP.
  if (want.facturx) {
    const fx = {
      DocumentType: 'INVOICE',
      DocumentFileName: want.facturx.fileName,
      Version: '1.0',
      ConformanceLevel: want.facturx.level,
    };
    for (const [key, value] of Object.entries(fx))
      if (xmpValue(xmp, `fx:${key}`) !== value)
        fail(`Factur-X 1.0 XMP (fx:${key})`, `is ${JSON.stringify(xmpValue(xmp, `fx:${key}`))}, not ${value}`);
    if (
      !xmp.includes(
        '<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>',
      )
    )
      fail('ISO 19005-2 6.6.2.3.1 (extension schema)', 'fx is used without a PDF/A extension schema');
  }
  return failures;
}

function sorted(counts: Record<string, number>): [string, number][] {
  return Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1));
}
