// The check that lets a warm page skip its unload after a render: anything that might run a script or
// leave document state behind must count as scripted, however it is written. (The integration side,
// that a scripted render is unloaded and an inert one is not, is in test/integration/isolation.test.ts.)
import { describe, expect, it } from 'vitest';
import { awaitsNothing, isInertHtml, rendersInertly } from '../../src/render/load/inert-html.js';
import type { PageSpec } from '../../src/domain/render-spec.js';

const INVOICE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Invoice</title><style>body{font-family:Helvetica} td.n{text-align:right}</style></head>
<body><h1>Invoice 42</h1><table><tr><td>Consulting</td><td class="n">10.00</td></tr></table></body></html>`;

describe('isInertHtml', () => {
  it('plain markup with styles, tables and a charset is inert', () => {
    expect(isInertHtml(INVOICE)).toBe(true);
    expect(isInertHtml('<p>Version = 2, button = ok</p>')).toBe(true); // "on" inside words, then "="
  });

  it.each([
    ['a script', '<script>x=1</script>'],
    ['a script in capitals', '<SCRIPT SRC=x.js></SCRIPT>'],
    ['an SVG script', '<svg><script href="data:,alert(1)"/></svg>'],
    ['an event handler after a newline', '<svg\nonload=go()>'],
    ['an event handler', '<img src=x onerror=alert(1)>'],
    ['an event handler after a slash', '<img/onerror=alert(1) src=x>'],
    ['an event handler right after a quote', '<a title="x"onmouseover="go()">'],
    ['an event handler with spaces before =', '<body ONLOAD  = "go()">'],
    ['an iframe (its src may be a javascript: URL written as references)', '<iframe src="&#106;avascript:1">'],
    ['a srcdoc frame', '<iframe srcdoc="<p>">'],
    ['a frameset', '<frameset><frame src=a></frameset>'],
    ['an object', '<object data=x.svg></object>'],
    ['an embed', '<embed src=x>'],
    ['a portal', '<portal src=x>'],
    ['a fenced frame', '<fencedframe></fencedframe>'],
    ['noscript (drawn differently without script)', '<noscript>hi</noscript>'],
    ['a javascript: URL', '<a href="javascript:go()">x</a>'],
    ['a meta refresh', '<meta http-equiv="refresh" content="0;url=/next">'],
    ['a Content-Security-Policy meta', '<meta content="script-src \'none\'" http-equiv="Content-Security-Policy">'],
    ['a meta whose quoted value holds a >', '<meta content="a>b" http-equiv=refresh>'],
    ['a referrer policy', '<meta name="referrer" content="no-referrer">'],
    ['a base element', '<base href="https://example.com/">'],
    ['autofocus (focus scrolls the page)', '<input autofocus>'],
  ])('%s is not inert', (_what, html) => {
    expect(isInertHtml(`${INVOICE}${html}`)).toBe(false);
  });
});

describe('rendersInertly', () => {
  const base = { html: INVOICE, javaScriptEnabled: true, scrollPage: false } as PageSpec;

  it('inert HTML with no option that runs code or sets state', () => {
    expect(rendersInertly({ ...base })).toBe(true);
    expect(rendersInertly({ ...base, css: 'h1{color:red}', hideSelectors: ['h1'], waitForSelector: 'h1' })).toBe(true);
  });

  it.each([
    ['a url', { html: undefined, url: 'http://127.0.0.1/' }],
    ['a baseUrl (loaded by a navigation)', { baseUrl: 'http://127.0.0.1/' }],
    ['js', { js: 'document.title = 1' }],
    ['waitForFunction', { waitForFunction: 'true' }],
    ['scrollPage', { scrollPage: true }],
    ['cookies', { cookies: [{ name: 'a', value: 'b', url: 'http://127.0.0.1/' }] }],
    ['headers', { headers: { 'x-a': 'b' } }],
    ['blockResources', { blockResources: ['image'] }],
    ['scripted HTML', { html: '<p onclick=go()>x</p>' }],
  ])('not with %s', (_what, change) => {
    expect(rendersInertly({ ...base, ...change } as PageSpec)).toBe(false);
  });

  it('awaitsNothing: an inert render without images, links or web fonts', () => {
    expect(awaitsNothing({ ...base })).toBe(true);
    expect(awaitsNothing({ ...base, html: `${INVOICE}<img src="data:image/png;base64,AA==">` })).toBe(false);
    expect(awaitsNothing({ ...base, html: `<style>@font-face{font-family:x;src:url(x.woff)}</style>` })).toBe(false);
    expect(awaitsNothing({ ...base, html: `<link rel=stylesheet href=x.css>` })).toBe(false);
    expect(awaitsNothing({ ...base, js: 'x' })).toBe(false);
  });
});
