// The header every page starts with (skip link, brand, main navigation), written once: static pages
// carry the marker below in its place, and the docs page calls it directly.
export const SITE_HEADER_MARKER = '<!--#site-header-->';

const LINKS: [path: string, label: string][] = [
  ['/', 'Convert'],
  ['/monitors', 'Monitors'],
  ['/status', 'Status'],
  ['/docs', 'Docs'],
];

/** The header with `current` marked as the page the reader is on. */
export function siteHeader(current: string): string {
  const items = LINKS.map(
    ([path, label]) => `<li><a href="${path}"${path === current ? ' aria-current="page"' : ''}>${label}</a></li>`,
  );
  return `<a class="skip" href="#main">Skip to content</a>
<header class="site"><div class="inner"><a class="brand" href="/">Pagewatch</a>
<nav aria-label="Main"><ul>${items.join('')}</ul></nav></div></header>`;
}
