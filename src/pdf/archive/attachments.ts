// Attached files: each an embedded file stream (ISO 32000-1 7.11.4) under a file specification with /F,
// /UF, /Desc and /AFRelationship, listed in the catalog's /Names /EmbeddedFiles name tree (what viewers
// show) and in the catalog's /AF array (ISO 19005-3 6.8: how PDF/A-3 associates a file with the document).
// pdf-lib's doc.attach() leaves out /AF and /CheckSum and embeds only at save: this writes it all at once.
import { createHash } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFString, type PDFObject } from 'pdf-lib';
import type { PdfAttachment } from '../../domain/pdf-spec.js';
import { invalidRequest } from '../../errors.js';
import { pdfDate } from './metadata.js';

/** The name tree's leaves, flattened (a tree with /Kids is read whole and written back as one leaf). */
function nameTreeEntries(doc: PDFDocument, node: PDFDict | undefined): [string, PDFObject][] {
  if (!node) return [];
  const out: [string, PDFObject][] = [];
  const names = node.lookupMaybe(PDFName.of('Names'), PDFArray);
  for (let i = 0; names && i + 1 < names.size(); i += 2) {
    const key = names.lookup(i);
    if (key instanceof PDFString || key instanceof PDFHexString) out.push([key.decodeText(), names.get(i + 1)]);
  }
  const kids = node.lookupMaybe(PDFName.of('Kids'), PDFArray);
  for (let i = 0; kids && i < kids.size(); i++) out.push(...nameTreeEntries(doc, kids.lookupMaybe(i, PDFDict)));
  return out;
}

function embeddedFilesTree(doc: PDFDocument): PDFDict | undefined {
  return doc.catalog.lookupMaybe(PDFName.of('Names'), PDFDict)?.lookupMaybe(PDFName.of('EmbeddedFiles'), PDFDict);
}

/**
 * Attaches one file. `path` names the option in errors. Refuses a name already attached: a name tree key is
 * unique, and two files of one name would leave the reader guessing.
 */
export function embedFile(doc: PDFDocument, file: PdfAttachment, now: Date, path: string): void {
  const existing = nameTreeEntries(doc, embeddedFilesTree(doc));
  if (existing.some(([name]) => name === file.name))
    throw invalidRequest(`Two attachments are named ${JSON.stringify(file.name)}; give each its own name.`, [
      { path: `${path}.name`, message: 'is already the name of another attachment' },
    ]);
  const { context } = doc;
  const stream = context.flateStream(file.bytes, {
    Type: 'EmbeddedFile',
    Subtype: file.contentType,
    Params: {
      Size: file.bytes.length,
      ModDate: pdfDate(now),
    },
  });
  // /CheckSum is the MD5 of the file's bytes as a byte string: hex form writes those bytes exactly.
  stream.dict
    .lookup(PDFName.of('Params'), PDFDict)
    .set(PDFName.of('CheckSum'), PDFHexString.of(createHash('md5').update(file.bytes).digest('hex')));
  const streamRef = context.register(stream);
  const spec = context.obj({
    Type: 'Filespec',
    // /F is a byte string; a non-ASCII name keeps its exact form in /UF.
    F: PDFString.of(file.name.replace(/[^\x20-\x7e]|[()\\]/g, '_')),
    UF: PDFHexString.fromText(file.name),
    Desc: PDFHexString.fromText(file.description ?? file.name),
    AFRelationship: file.relationship,
    EF: { F: streamRef, UF: streamRef },
  });
  const specRef = context.register(spec);

  const entries = [...existing, [file.name, specRef] as [string, PDFObject]].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const names = context.obj([]);
  for (const [name, value] of entries) {
    names.push(PDFHexString.fromText(name));
    names.push(value);
  }
  let catalogNames = doc.catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
  if (!catalogNames) {
    catalogNames = context.obj({});
    doc.catalog.set(PDFName.of('Names'), catalogNames);
  }
  catalogNames.set(PDFName.of('EmbeddedFiles'), context.obj({ Names: names }));

  let af = doc.catalog.lookupMaybe(PDFName.of('AF'), PDFArray);
  if (!af) {
    af = context.obj([]);
    doc.catalog.set(PDFName.of('AF'), af);
  }
  af.push(specRef);
}

/** Attaches the files in order; embeds[i] is the path an error names. */
export function attachFiles(doc: PDFDocument, files: PdfAttachment[], now: Date): void {
  files.forEach((file, i) => embedFile(doc, file, now, `embeds[${i}]`));
}
