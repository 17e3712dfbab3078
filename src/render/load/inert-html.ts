// HTML that cannot run a script of its own. Such a document needs less waiting: it cannot start a
// download (that takes a script or a meta refresh), so Playwright's own load wait is safe for it, and
// without an image, stylesheet link or web font there are no fonts or images to wait for. The check is
// deliberately coarse: a false "scripted" costs a round trip, a false "inert" would skip a wait that
// was needed, so anything that might run script or load something counts as scripted. Every page is
// still unloaded and wiped after its render, inert or not (WarmPage.wipe): a fresh document for every
// render is what keeps one caller's state from the next, and it holds by construction, not by this list.
import type { PageSpec } from '../../domain/render-spec.js';

const MIGHT_RUN_OR_LINGER: readonly RegExp[] = [
  // Elements that run script, load documents that can (javascript: URLs in attributes may be written
  // as character references, so no URL is trusted), or behave differently without script.
  /<(script|iframe|frame|object|embed|portal|fencedframe|noscript|applet)/i,
  // Event handler attributes. A name starts after whitespace, a slash or a quoted value (`<img/onerror=`,
  // `"onload=`); "content=" is no handler.
  /[\s/"']on[a-z]+\s*=/i,
  // <meta http-equiv> (refresh, Content-Security-Policy, set-cookie...) and <meta name="referrer"> set
  // document state that outlives the tree; <base> changes where the next document resolves URLs. The
  // words are looked for anywhere, not in a parsed tag: a quoted `>` would end a tag a pattern matched.
  /http-equiv|referrer|<base/i,
  /javascript:/i,
  // Focus moves (and scrolls) the page; the scroll offset would outlive the document.
  /autofocus/i,
];

/** The caller's HTML, as given, can run no script and leaves nothing behind but its own tree. */
export function isInertHtml(html: string): boolean {
  return !MIGHT_RUN_OR_LINGER.some((pattern) => pattern.test(html));
}

/**
 * A render of the caller's inert HTML as the document (no baseUrl: that one is loaded by a navigation),
 * with no option that runs the caller's code or changes state beyond the document.
 */
export function rendersInertly(req: PageSpec): boolean {
  let verdict = verdicts.get(req);
  if (verdict === undefined) verdicts.set(req, (verdict = inertRequest(req)));
  return verdict;
}

/** Asked at several steps of one render; the HTML may be megabytes long, so it is read once. */
const verdicts = new WeakMap<PageSpec, boolean>();

function inertRequest(req: PageSpec): boolean {
  return (
    req.html !== undefined &&
    req.baseUrl === undefined &&
    req.files === undefined &&
    req.js === undefined &&
    req.waitForFunction === undefined &&
    !req.scrollPage &&
    !req.cookies?.length &&
    req.headers === undefined &&
    !req.blockResources?.length &&
    isInertHtml(req.html)
  );
}

/** An inert render that waits on nothing: no image, stylesheet link or web font to be ready for a capture. */
export function awaitsNothing(req: PageSpec): boolean {
  return rendersInertly(req) && !/<(img|image|link|picture|svg|video)|@font-face|@import/i.test(req.html!);
}
