// An upload's files served to the browser for one render: from memory, at an origin that exists only for
// that render (a random name under .invalid, a reserved TLD that resolves nowhere). page.route answers
// every request to that origin, so none reaches the network or the egress proxy, and an unknown path is
// a 404 from here. The route goes with the page's wipe (unrouteAll): a later render asking for this origin
// finds no route, and its request goes to the proxy like any other, where the name does not resolve.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright';
import type { UploadedFile } from '../../domain/render-spec.js';

/** The reserved domain under which each upload gets a name of its own. */
export const UPLOAD_DOMAIN = 'upload.invalid';

/** Route the upload's origin on `page`; returns the URL of its index.html. */
export async function serveUpload(
  page: Page,
  files: readonly UploadedFile[],
  blockResources: readonly string[] = [],
): Promise<string> {
  const host = `${randomBytes(12).toString('hex')}.${UPLOAD_DOMAIN}`;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const blocked = new Set(blockResources);
  await page.route(
    (u) => u.host === host,
    (route) => {
      const request = route.request();
      // This route runs before blockResources' own (the later route first): apply the caller's blocks here.
      if (blocked.has(request.resourceType())) return route.abort('blockedbyclient');
      const file = byPath.get(pathOfUrl(new URL(request.url()).pathname) ?? '');
      if (!file)
        return route.fulfill({ status: 404, contentType: 'text/plain; charset=utf-8', body: 'not in the upload' });
      return route.fulfill({ status: 200, contentType: file.contentType, body: file.bytes });
    },
  );
  return `http://${host}/index.html`;
}

/** The uploaded path a request's URL path names ("/" and "/folder/" name their index.html); undefined if none can. */
export function pathOfUrl(pathname: string): string | undefined {
  try {
    const path = pathname
      .slice(1)
      .split('/')
      .map((s) => decodeURIComponent(s))
      .join('/');
    return path === '' || path.endsWith('/') ? `${path}index.html` : path;
  } catch {
    return undefined; // a malformed escape names no file
  }
}
