// Draws a stamp's page (stamp-page.ts, printed by Chromium) on a document's pages: embedded once as a
// Form XObject, placed per page as the reader sees the page (its CropBox and /Rotate), turned about its
// centre, with its opacity. What is drawn is marked as an /Artifact, so the page's text, its marked
// content and the structure tree are untouched and a tagged (PDF/UA) document stays valid.
//
// A watermark ("under") is a content stream put before the page's own; a stamp ("over") comes after them,
// and the page's own streams are wrapped in q … Q first, since they may leave the graphics state (the
// transformation matrix, a clip) changed at their end.
import {
  type PDFDocument,
  type PDFPage,
  PDFArray,
  PDFName,
  type PDFRef,
  PDFStream,
  beginMarkedContent,
  concatTransformationMatrix,
  drawObject,
  endMarkedContent,
  popGraphicsState,
  pushGraphicsState,
  setGraphicsState,
} from 'pdf-lib';
import type { PdfStamp, StampPosition } from '../../domain/pdf-spec.js';
import { invalidPdf } from '../../errors.js';
import { pageIndexes } from '../page-ranges.js';
import { checkStamp } from './stamp-page.js';

export type StampLayer = 'under' | 'over';

/** The option a layer belongs to, as errors name it. */
export const STAMP_FIELD = { under: 'watermark', over: 'stamp' } as const satisfies Record<StampLayer, string>;

export async function applyStamp(
  doc: PDFDocument,
  stampPdf: Uint8Array,
  stamp: PdfStamp,
  layer: StampLayer,
): Promise<void> {
  const field = STAMP_FIELD[layer];
  checkStamp(stamp, field);
  const indexes = pageIndexes(stamp.pages, doc.getPageCount(), `${field}.pages`);
  let embedded;
  try {
    [embedded] = await doc.embedPdf(stampPdf, [0]);
    await embedded?.embed();
  } catch (cause) {
    // The stamp's page comes from our own Chromium: failing to read it is the service's fault.
    throw new Error(`the ${field}'s rendered page could not be read`, { cause });
  }
  if (!embedded) throw new Error(`the ${field}'s rendered page is missing`);
  // A transparency group, so the opacity applies to the stamp as a whole: Chromium's own content sets
  // its alpha (ca 1) with gs operators of its own, which would otherwise replace ours.
  doc.context.lookup(embedded.ref, PDFStream).dict.set(PDFName.of('Group'), doc.context.obj({ S: 'Transparency' }));
  const opacity = doc.context.register(doc.context.obj({ Type: 'ExtGState', ca: stamp.opacity, CA: stamp.opacity }));
  // Over: one pair of streams, shared by every page, puts the page's own content in q … Q.
  const save =
    layer === 'over' ? doc.context.register(doc.context.flateStream(String(pushGraphicsState()))) : undefined;
  const restore =
    layer === 'over' ? doc.context.register(doc.context.flateStream(String(popGraphicsState()))) : undefined;
  const pages = doc.getPages();
  for (const index of indexes) {
    const page = pages[index]!;
    const matrix = placement(page, { width: embedded.width, height: embedded.height }, stamp);
    const xObject = page.node.newXObject('Stamp', embedded.ref);
    const state = page.node.newExtGState('StampGS', opacity);
    const drawing = doc.context.register(
      doc.context.flateStream(
        [
          beginMarkedContent('Artifact'),
          pushGraphicsState(),
          setGraphicsState(state),
          concatTransformationMatrix(...matrix),
          drawObject(xObject),
          popGraphicsState(),
          endMarkedContent(),
        ]
          .map(String)
          .join('\n'),
      ),
    );
    addContent(page, layer === 'under' ? { before: drawing } : { before: save!, after: [restore!, drawing] });
  }
}

/** Puts streams before and after the page's own content streams (a single stream becomes an array). */
function addContent(page: PDFPage, add: { before?: PDFRef; after?: PDFRef[] }): void {
  const { context } = page.doc;
  const current = page.node.get(PDFName.of('Contents'));
  const resolved = current === undefined ? undefined : context.lookup(current);
  let contents: PDFArray;
  if (resolved instanceof PDFArray) contents = resolved;
  else if (resolved instanceof PDFStream || resolved === undefined) {
    contents = context.obj(resolved === undefined ? [] : [current!]);
    page.node.set(PDFName.of('Contents'), contents);
  } else throw invalidPdf(`page ${page.doc.getPages().indexOf(page) + 1} has unreadable content (its /Contents)`);
  if (add.before) contents.insert(0, add.before);
  for (const ref of add.after ?? []) contents.push(ref);
}

type Matrix = [number, number, number, number, number, number];

/**
 * The matrix that draws the stamp's form (its box at the origin, `size` points) where it belongs on the
 * page: its turned box's bounding box against the position's edges in the reader's view, moved by the
 * offsets, then mapped into the page's unrotated space.
 */
export function placement(page: PDFPage, size: { width: number; height: number }, stamp: PdfStamp): Matrix {
  const box = page.getCropBox();
  const pageTurn = (((page.getRotation().angle % 360) + 360) % 360) as 0 | 90 | 180 | 270;
  const sideways = pageTurn === 90 || pageTurn === 270;
  // The page as the reader sees it.
  const viewWidth = sideways ? box.height : box.width;
  const viewHeight = sideways ? box.width : box.height;
  const turn = (stamp.rotation * Math.PI) / 180;
  const cos = Math.cos(turn);
  const sin = Math.sin(turn);
  const boundsWidth = Math.abs(size.width * cos) + Math.abs(size.height * sin);
  const boundsHeight = Math.abs(size.width * sin) + Math.abs(size.height * cos);
  const [horizontal, vertical] = axes(stamp.position);
  // The centre along one axis: `offset` in from the near edge, in from the far one, or off the middle.
  const centre = (edge: 'near' | 'far' | 'middle', offset: number, extent: number, length: number) =>
    edge === 'near' ? offset + length / 2 : edge === 'far' ? extent - offset - length / 2 : extent / 2 + offset;
  const edgeOf = (side: string, near: string, far: string) =>
    side === near ? 'near' : side === far ? 'far' : 'middle';
  const x = centre(edgeOf(horizontal, 'left', 'right'), stamp.offsetX, viewWidth, boundsWidth);
  const y = centre(edgeOf(vertical, 'bottom', 'top'), stamp.offsetY, viewHeight, boundsHeight);
  // The reader's view is the page turned clockwise by /Rotate: back to the page's own coordinates.
  const [u, v] =
    pageTurn === 0
      ? [x, y]
      : pageTurn === 90
        ? [box.width - y, x]
        : pageTurn === 180
          ? [box.width - x, box.height - y]
          : [y, box.height - x];
  const centreX = box.x + u;
  const centreY = box.y + v;
  // Upright to the reader means turned back by the page's own rotation as well.
  const angle = turn + (pageTurn * Math.PI) / 180;
  const a = clean(Math.cos(angle));
  const b = clean(Math.sin(angle));
  const halfW = size.width / 2;
  const halfH = size.height / 2;
  return [a, b, -b, a, clean(centreX - (a * halfW - b * halfH)), clean(centreY - (b * halfW + a * halfH))];
}

/** The position as [horizontal, vertical] edges. */
function axes(position: StampPosition): ['left' | 'center' | 'right', 'top' | 'center' | 'bottom'] {
  const horizontal = position.endsWith('left') ? 'left' : position.endsWith('right') ? 'right' : 'center';
  const vertical = position.startsWith('top') ? 'top' : position.startsWith('bottom') ? 'bottom' : 'center';
  return [horizontal, vertical];
}

/** Rounded to 1/10000 pt, so cos 90° is written 0, not 6e-17. */
const clean = (n: number) => Math.round(n * 1e4) / 1e4 || 0;
