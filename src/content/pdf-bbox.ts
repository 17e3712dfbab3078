// The text of `pdftotext -bbox-layout`: XHTML whose <page width height> hold <flow>s of <block>s (the
// paragraphs poppler finds) of <line>s of <word>s, each with its box in PDF points from the page's top
// left. This mode, not plain -layout text, because it keeps the paragraphs apart and says where each is,
// which a change needs to be shown on the picture. Runs in the reader's thread (pdf-read-thread.ts): the
// text of a large PDF is megabytes of XML.
import { XMLParser } from 'fast-xml-parser';

/** A block's box in PDF points, from the page's top left. */
export interface PointBox {
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

export interface BboxPage {
  /** In points, as the page is shown (rotation applied). */
  width: number;
  height: number;
  blocks: { text: string; box: PointBox }[];
}

type Node = Record<string, unknown>;
const ARRAYS = new Set(['page', 'flow', 'block', 'line', 'word']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Words stay strings ("007" is not 7) and the boxes are read with Number below.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => ARRAYS.has(name),
});

const list = (node: unknown, key: string): Node[] =>
  node && typeof node === 'object' ? (((node as Node)[key] as Node[] | undefined) ?? []) : [];
const num = (node: Node, key: string) => {
  const n = Number(node[key]);
  return Number.isFinite(n) ? n : 0;
};
const wordText = (word: Node | string): string =>
  typeof word === 'string' ? word : typeof word['#text'] === 'string' ? word['#text'] : '';

/** The pages of a -bbox-layout document, in order, with their non-empty blocks. */
export function parseBbox(xml: string): BboxPage[] {
  const parsed = parser.parse(xml) as { html?: { body?: { doc?: Node } } };
  const docNode = parsed.html?.body?.doc;
  return list(docNode, 'page').map((page) => ({
    width: num(page, 'width'),
    height: num(page, 'height'),
    blocks: list(page, 'flow')
      .flatMap((flow) => list(flow, 'block'))
      .map((block) => ({
        text: list(block, 'line')
          .flatMap((line) => list(line, 'word').map(wordText))
          .join(' ')
          .replace(/\s+/g, ' ')
          .trim(),
        box: { xMin: num(block, 'xMin'), yMin: num(block, 'yMin'), xMax: num(block, 'xMax'), yMax: num(block, 'yMax') },
      }))
      .filter((block) => block.text !== ''),
  }));
}
