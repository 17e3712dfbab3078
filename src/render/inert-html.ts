// HTML that cannot run a script of its own. A warm page whose last render was such a document (and
// reached no network, see WarmPage) needs no navigation to unload it: no code of it ever ran, so nothing
// of it can still be running or waiting, and the next render's document replaces it whole. The check is
// deliberately coarse: a false "scripted" costs one navigation (~35 ms of browser CPU), a false "inert"
// would let one render see the next, so anything that might run script, or that leaves state on the
// document beyond its own tree, counts as scripted.
import type { PageSpec } from '../domain/render-spec.js';

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
 * A render whose page can be handed on without an unload, if it also made no request (WarmPage tracks
 * that): the caller's inert HTML as the document (no baseUrl: that one is loaded by a navigation), and
 * no option that runs the caller's code or changes state beyond the document.
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
