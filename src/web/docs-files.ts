// The reference files of docs/ (Markdown, and the PNG images they show), served as they are under /docs/:
// /docs/monitors.md, /docs/images/diff-price-change.png. The paths mirror the repository, so the relative
// links between the files resolve the same in a checkout and in a browser, and a browser shows Markdown as
// text, which needs no renderer of ours (and nothing in a file can run).
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project-root.js';

/** Only flat names of the expected kind: nothing outside docs/ (or docs/images/) can be asked for. */
const PAGE_NAME = /^[a-z0-9][a-z0-9-]*\.md$/;
const IMAGE_NAME = /^[a-z0-9][a-z0-9-]*\.png$/;

export const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';
export const IMAGE_TYPE = 'image/png';

export interface DocPage {
  /** The file name, e.g. `monitors.md`; it is served at `/docs/<name>`. */
  name: string;
  /** The file's first `# ` heading without Markdown's code marks, or its name when it has none. */
  title: string;
  body: Buffer;
}

export interface DocsFiles {
  /** In name order. */
  pages: DocPage[];
  /** Image name → its bytes, served at `/docs/images/<name>`. */
  images: Map<string, Buffer>;
}

export const DOCS_DIR = join(projectRoot(), 'docs');

/** Read once, when the routes are made: the files do not change while the service runs. */
export function readDocsFiles(dir = DOCS_DIR): DocsFiles {
  const pages = listNames(dir, PAGE_NAME).map((name) => {
    const body = readFileSync(join(dir, name));
    const title = /^# (.+)$/m.exec(body.toString('utf8'))?.[1]?.replace(/`/g, '').trim() ?? name;
    return { name, title, body };
  });
  const imagesDir = join(dir, 'images');
  const images = new Map(listNames(imagesDir, IMAGE_NAME).map((name) => [name, readFileSync(join(imagesDir, name))]));
  return { pages, images };
}

/**
 * A deployment without docs/ (or one its user cannot read) serves the /docs page with no files to link:
 * the reference files are worth having, not worth refusing to start over.
 */
function listNames(dir: string, pattern: RegExp): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => pattern.test(name) && isReadableFile(join(dir, name)))
      .sort();
  } catch {
    return [];
  }
}

function isReadableFile(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The path a page is served at. */
export function docPagePath(page: Pick<DocPage, 'name'>): string {
  return `/docs/${page.name}`;
}
