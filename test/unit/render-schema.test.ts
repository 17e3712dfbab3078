import { describe, expect, it } from 'vitest';
import { imageRequestSchema, pdfRequestSchema } from '../../src/http/schemas/render.js';
import { refusalDetails } from '../helpers/refusal.js';

/** The configuration's defaults for the size caps. */
const SIZE_LIMITS = { maxFullPageHeight: 16_384, maxImagePixels: 50_000_000 };
const limits = { ...SIZE_LIMITS, maxTimeoutMs: 120_000 };
const image = imageRequestSchema(limits);
const pdf = pdfRequestSchema(limits);

type Schema = typeof image | typeof pdf;

/** The issue paths of a failed parse, e.g. ["viewport.width", "delay"]. */
function issuePaths(schema: Schema, body: unknown): string[] {
  const result = schema.safeParse(body);
  expect(result.success, `expected ${JSON.stringify(body)} to be refused`).toBe(false);
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
}

function ok(schema: Schema, body: unknown): void {
  const result = schema.safeParse(body);
  expect(
    result.success,
    `expected ${JSON.stringify(body)} to be accepted: ${result.success ? '' : JSON.stringify(result.error.issues)}`,
  ).toBe(true);
}

/** The details parseBody (the HTTP layer) would send. */
const details = (schema: Schema, body: unknown) => refusalDetails(schema, body);

describe('imageRequestSchema defaults', () => {
  it('fills in the documented defaults for a bare html request', () => {
    const req = image.parse({ html: '<p>x</p>' });
    expect(req).toEqual({
      html: '<p>x</p>',
      colorScheme: 'light',
      javaScriptEnabled: true,
      headersScope: 'origin',
      waitUntil: 'load',
      delay: 0,
      timeout: 30_000,
      scrollPage: false,
      response: 'binary',
      async: false,
      format: 'png',
      fullPage: false,
      omitBackground: false,
      animations: 'disabled',
      caret: 'hide',
    });
  });

  it('leaves optional fields without a fixed default unset (resolved at render time)', () => {
    const req = image.parse({ url: 'https://example.com/' });
    for (const key of [
      'viewport',
      'deviceScaleFactor',
      'media',
      'quality',
      'failOnHttpError',
      'filename',
      'selector',
      'clip',
    ] as const) {
      expect(req[key], key).toBeUndefined();
    }
  });

  it('keeps given values instead of defaults', () => {
    const req = image.parse({
      html: 'x',
      colorScheme: 'dark',
      timeout: 5000,
      format: 'webp',
      quality: 50,
      fullPage: true,
      delay: 250,
    });
    expect(req).toMatchObject({
      colorScheme: 'dark',
      timeout: 5000,
      format: 'webp',
      quality: 50,
      fullPage: true,
      delay: 250,
    });
  });

  it('accepts "jpg" as a format', () => {
    expect(image.parse({ html: 'x', format: 'jpg' }).format).toBe('jpg');
  });
});

describe('pdfRequestSchema defaults', () => {
  it('fills in the documented defaults for a bare html request', () => {
    const req = pdf.parse({ html: '<p>x</p>' });
    expect(req).toEqual({
      html: '<p>x</p>',
      colorScheme: 'light',
      javaScriptEnabled: true,
      headersScope: 'origin',
      waitUntil: 'load',
      delay: 0,
      timeout: 30_000,
      scrollPage: false,
      response: 'binary',
      async: false,
      landscape: false,
      scale: 1,
      printBackground: true,
      preferCSSPageSize: false,
      tagged: true,
      outline: false,
      singlePage: false,
      omitBackground: false,
    });
    // A4 and 10 mm margins are applied at render time, so width/height can be given instead.
    expect(req.format).toBeUndefined();
    expect(req.margin).toBeUndefined();
  });

  it('accepts the documented paper formats and CSS lengths', () => {
    for (const format of ['A4', 'Letter', 'Legal', 'Tabloid', 'A3', 'A5']) ok(pdf, { html: 'x', format });
    expect(issuePaths(pdf, { html: 'x', format: 'a4' })).toEqual(['format']);
    expect(issuePaths(pdf, { html: 'x', format: 'B5' })).toEqual(['format']);
    ok(pdf, { html: 'x', width: '8.5in', height: '11in' });
    ok(pdf, { html: 'x', width: 600, height: '800px' });
    ok(pdf, { html: 'x', margin: { top: '1cm', right: 0, bottom: '10mm', left: '0.5in' } });
    expect(issuePaths(pdf, { html: 'x', margin: { top: '1 parsec' } })).toEqual(['margin.top']);
    expect(issuePaths(pdf, { html: 'x', margin: { top: '1cm', inner: '1cm' } })).toEqual(['margin']);
  });

  it('validates pageRanges', () => {
    ok(pdf, { html: 'x', pageRanges: '1-3,5' });
    ok(pdf, { html: 'x', pageRanges: ' 2 ' });
    expect(issuePaths(pdf, { html: 'x', pageRanges: 'first' })).toEqual(['pageRanges']);
    expect(issuePaths(pdf, { html: 'x', pageRanges: '1-' })).toEqual(['pageRanges']);
  });
});

describe('source rules', () => {
  for (const [name, schema] of [
    ['image', image],
    ['pdf', pdf],
  ] as const) {
    it(`${name}: exactly one of url or html`, () => {
      ok(schema, { url: 'https://example.com' });
      ok(schema, { html: '' }); // an empty document is still a document
      expect(issuePaths(schema, { url: 'https://example.com', html: 'x' })).toEqual(['url']);
      expect(issuePaths(schema, {})).toEqual(['url']);
    });

    it(`${name}: url must be absolute http(s)`, () => {
      ok(schema, { url: 'http://example.com/a?b=c' });
      for (const url of [
        'ftp://example.com/f',
        'file:///etc/passwd',
        'javascript:alert(1)',
        'data:text/html,x',
        '/relative',
        'example.com',
      ]) {
        expect(issuePaths(schema, { url }), url).toEqual(['url']);
      }
    });

    it(`${name}: async is a boolean; webhookUrl needs async and is absolute http(s)`, () => {
      ok(schema, { html: 'x', async: true });
      ok(schema, { html: 'x', async: true, webhookUrl: 'https://hooks.example.com/pagewatch' });
      expect(issuePaths(schema, { html: 'x', async: 'yes' })).toEqual(['async']);
      expect(issuePaths(schema, { html: 'x', webhookUrl: 'https://hooks.example.com/' })).toEqual(['webhookUrl']);
      expect(issuePaths(schema, { html: 'x', async: false, webhookUrl: 'https://hooks.example.com/' })).toEqual([
        'webhookUrl',
      ]);
      for (const webhookUrl of ['ftp://hooks.example.com/', '/relative', ' https://hooks.example.com/']) {
        expect(issuePaths(schema, { html: 'x', async: true, webhookUrl }), webhookUrl).toEqual(['webhookUrl']);
      }
    });

    it(`${name}: baseUrl only with html, and http(s) only`, () => {
      ok(schema, { html: '<img src="a.png">', baseUrl: 'https://example.com/' });
      expect(issuePaths(schema, { url: 'https://example.com', baseUrl: 'https://example.com/' })).toEqual(['baseUrl']);
      expect(issuePaths(schema, { html: 'x', baseUrl: 'file:///tmp/' })).toEqual(['baseUrl']);
    });

    it(`${name}: headers and httpCredentials need a target origin (url, or html with baseUrl)`, () => {
      const headers = { authorization: 'Bearer t' };
      const httpCredentials = { username: 'u', password: 'p' };
      ok(schema, { url: 'https://example.com', headers, httpCredentials });
      ok(schema, { html: 'x', baseUrl: 'https://example.com/', headers, httpCredentials });
      ok(schema, { html: 'x', headers, headersScope: 'all' });
      ok(schema, { html: 'x', headers: {} }); // nothing to send, nothing to bind
      expect(issuePaths(schema, { html: 'x', headers })).toEqual(['headers']);
      expect(issuePaths(schema, { html: 'x', headers, headersScope: 'origin' })).toEqual(['headers']);
      expect(issuePaths(schema, { html: 'x', httpCredentials, headersScope: 'all' })).toEqual(['httpCredentials']);
      expect(issuePaths(schema, { url: 'https://example.com', headersScope: 'everywhere' })).toEqual(['headersScope']);
    });

    it(`${name}: header names are tokens and values hold no CR, LF or NUL (Chromium would refuse them mid-render)`, () => {
      ok(schema, { url: 'https://example.com', headers: { 'X-Api_Key.v2': 'é ok', 'x-empty': '' } });
      expect(details(schema, { url: 'https://example.com', headers: { 'bad name': 'x' } })).toEqual([
        { path: 'headers.bad name', message: expect.stringContaining('not a valid header name') as unknown },
      ]);
      expect(details(schema, { url: 'https://example.com', headers: { 'x-v': 'a\nb' } })).toEqual([
        { path: 'headers.x-v', message: 'a header value cannot hold CR, LF or NUL' },
      ]);
      expect(issuePaths(schema, { url: 'https://example.com', headers: { '': 'x', 'x-n': 'a\u0000' } }).sort()).toEqual(
        ['headers.', 'headers.x-n'],
      );
    });
  }
});

describe('field ranges', () => {
  const edges: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    [
      'viewport width',
      { viewport: { width: 3840, height: 1 } },
      { viewport: { width: 3841, height: 1 } },
      'viewport.width',
    ],
    [
      'viewport width min',
      { viewport: { width: 1, height: 1 } },
      { viewport: { width: 0, height: 1 } },
      'viewport.width',
    ],
    [
      'viewport height',
      { viewport: { width: 1, height: 2160 } },
      { viewport: { width: 1, height: 2161 } },
      'viewport.height',
    ],
    [
      'viewport height min',
      { viewport: { width: 1, height: 1 } },
      { viewport: { width: 1, height: 0 } },
      'viewport.height',
    ],
    [
      'viewport integers',
      { viewport: { width: 100, height: 100 } },
      { viewport: { width: 100.5, height: 100 } },
      'viewport.width',
    ],
    ['deviceScaleFactor max', { deviceScaleFactor: 3 }, { deviceScaleFactor: 3.01 }, 'deviceScaleFactor'],
    ['deviceScaleFactor min', { deviceScaleFactor: 1 }, { deviceScaleFactor: 0.99 }, 'deviceScaleFactor'],
    ['delay max', { delay: 10_000 }, { delay: 10_001 }, 'delay'],
    ['delay min', { delay: 0 }, { delay: -1 }, 'delay'],
    ['timeout min', { timeout: 1000 }, { timeout: 999 }, 'timeout'],
    ['timeout max', { timeout: 120_000 }, { timeout: 120_001 }, 'timeout'],
    ['hideSelectors entries', { hideSelectors: ['.ad'] }, { hideSelectors: [''] }, 'hideSelectors.0'],
    [
      'blockResources types',
      { blockResources: ['image', 'websocket'] },
      { blockResources: ['images'] },
      'blockResources.0',
    ],
    ['filename length', { filename: 'a'.repeat(200) }, { filename: 'a'.repeat(201) }, 'filename'],
    ['locale', { locale: 'de-CH' }, { locale: 'german' }, 'locale'],
    ['timezoneId', { timezoneId: 'Europe/Paris' }, { timezoneId: 'Mars/Olympus' }, 'timezoneId'],
    ['device', { device: 'iPhone 13' }, { device: 'Nokia 3310' }, 'device'],
    ['waitUntil', { waitUntil: 'networkidle' }, { waitUntil: 'idle' }, 'waitUntil'],
    ['colorScheme', { colorScheme: 'dark' }, { colorScheme: 'no-preference' }, 'colorScheme'],
  ];
  for (const schema of [image, pdf]) {
    for (const [name, good, bad, path] of edges) {
      it(`${schema === image ? 'image' : 'pdf'}: ${name}`, () => {
        ok(schema, { html: 'x', ...good });
        expect(issuePaths(schema, { html: 'x', ...bad })).toEqual([path]);
      });
    }
  }

  it('image: quality 1..100 (jpeg/webp)', () => {
    ok(image, { html: 'x', format: 'jpeg', quality: 100 });
    ok(image, { html: 'x', format: 'webp', quality: 1 });
    expect(issuePaths(image, { html: 'x', format: 'jpeg', quality: 101 })).toEqual(['quality']);
    expect(issuePaths(image, { html: 'x', format: 'jpeg', quality: 0 })).toEqual(['quality']);
  });

  it('pdf: scale 0.1..2', () => {
    ok(pdf, { html: 'x', scale: 2 });
    ok(pdf, { html: 'x', scale: 0.1 });
    expect(issuePaths(pdf, { html: 'x', scale: 2.01 })).toEqual(['scale']);
    expect(issuePaths(pdf, { html: 'x', scale: 0.09 })).toEqual(['scale']);
  });

  it('timeout max follows limits.maxTimeoutMs', () => {
    const strict = imageRequestSchema({ ...SIZE_LIMITS, maxTimeoutMs: 5000 });
    ok(strict, { html: 'x', timeout: 5000 });
    expect(issuePaths(strict, { html: 'x', timeout: 5001 })).toEqual(['timeout']);
    // The default (30 s) above a smaller limit is the operator's choice; the explicit value is what counts.
    expect(
      issuePaths(imageRequestSchema({ ...SIZE_LIMITS, maxTimeoutMs: 200_000 }), { html: 'x', timeout: 200_001 }),
    ).toEqual(['timeout']);
  });

  it('device must be a real Playwright device name, not an inherited object property', () => {
    // `name in devices` also matches Object.prototype members; such a "device" has no viewport and
    // would crash the render (500) instead of answering 400.
    for (const device of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(issuePaths(image, { html: 'x', device }), device).toEqual(['device']);
    }
  });
});

describe('image size caps known up front (maxFullPageHeight 2000, maxImagePixels 2000000)', () => {
  const capped = imageRequestSchema({ maxTimeoutMs: 120_000, maxFullPageHeight: 2000, maxImagePixels: 2_000_000 });
  const clip = (width: number, height: number) => ({ x: 0, y: 0, width, height });

  it('viewport × deviceScaleFactor²: at the pixel cap accepted, one row over refused naming the viewport', () => {
    ok(capped, { html: 'x', viewport: { width: 500, height: 1000 }, deviceScaleFactor: 2 });
    const over = details(capped, { html: 'x', viewport: { width: 500, height: 1001 }, deviceScaleFactor: 2 });
    expect(over).toEqual([
      {
        path: 'viewport',
        message:
          'The viewport, 500×1001 px at scale 2, makes 2,002,000 output pixels, over the limit of 2,000,000 ' +
          '(limits.maxImagePixels): make it smaller or lower deviceScaleFactor.',
      },
    ]);
  });

  it('names deviceScaleFactor, or the device, when that is what the caller set', () => {
    ok(capped, { html: 'x', deviceScaleFactor: 1 }); // 1280×800 by default
    expect(issuePaths(capped, { html: 'x', deviceScaleFactor: 2 })).toEqual(['deviceScaleFactor']);
    // iPhone 13: 390×664 at its own scale 3 = 2330640 output pixels.
    expect(issuePaths(capped, { html: 'x', device: 'iPhone 13' })).toEqual(['device']);
    ok(capped, { html: 'x', device: 'iPhone 13', deviceScaleFactor: 2 });
  });

  it('a viewport side over maxFullPageHeight is refused naming that side', () => {
    const small = imageRequestSchema({ maxTimeoutMs: 120_000, maxFullPageHeight: 1000, maxImagePixels: 50_000_000 });
    ok(small, { html: 'x', viewport: { width: 1000, height: 800 } });
    expect(details(small, { html: 'x', viewport: { width: 1001, height: 800 } })).toEqual([
      {
        path: 'viewport.width',
        message: 'viewport.width can be at most 1,000 px (limits.maxFullPageHeight): give a smaller number.',
      },
    ]);
  });

  it('clip: each side at most maxFullPageHeight, its pixels (at the scale) at most maxImagePixels', () => {
    ok(capped, { html: 'x', clip: clip(2000, 1000) });
    expect(issuePaths(capped, { html: 'x', clip: clip(2001, 10) })).toEqual(['clip.width']);
    expect(issuePaths(capped, { html: 'x', clip: clip(10, 2001) })).toEqual(['clip.height']);
    expect(details(capped, { html: 'x', clip: clip(2000, 1001) })).toEqual([
      { path: 'clip', message: expect.stringContaining('makes 2,002,000 output pixels') as unknown },
    ]);
    ok(capped, { html: 'x', clip: clip(500, 1000), deviceScaleFactor: 2, viewport: { width: 500, height: 500 } });
    expect(
      issuePaths(capped, {
        html: 'x',
        clip: clip(501, 1000),
        deviceScaleFactor: 2,
        viewport: { width: 500, height: 500 },
      }),
    ).toEqual(['clip']);
  });

  it('the defaults (16384 px, 50000000 pixels) refuse the largest viewport at scale 3', () => {
    ok(image, { html: 'x', viewport: { width: 3840, height: 2160 }, deviceScaleFactor: 2 });
    expect(issuePaths(image, { html: 'x', viewport: { width: 3840, height: 2160 }, deviceScaleFactor: 3 })).toEqual([
      'viewport',
    ]);
  });
});

describe('image cross-field rules', () => {
  it('quality only with jpeg/webp', () => {
    expect(issuePaths(image, { html: 'x', quality: 80 })).toEqual(['quality']); // png is the default
    expect(issuePaths(image, { html: 'x', format: 'png', quality: 80 })).toEqual(['quality']);
    ok(image, { html: 'x', format: 'jpg', quality: 80 });
  });

  it('fullPage, selector and clip exclude each other', () => {
    expect(issuePaths(image, { html: 'x', fullPage: true, selector: '#a' })).toEqual(['selector']);
    expect(issuePaths(image, { html: 'x', fullPage: true, clip: { x: 0, y: 0, width: 10, height: 10 } })).toEqual([
      'clip',
    ]);
    expect(issuePaths(image, { html: 'x', selector: '#a', clip: { x: 0, y: 0, width: 10, height: 10 } })).toEqual([
      'clip',
    ]);
    ok(image, { html: 'x', fullPage: false, selector: '#a' });
    ok(image, { html: 'x', clip: { x: 0, y: 0, width: 10, height: 10 } });
  });

  it('clip needs a positive size', () => {
    expect(issuePaths(image, { html: 'x', clip: { x: 0, y: 0, width: 0, height: 10 } })).toEqual(['clip.width']);
    expect(issuePaths(image, { html: 'x', clip: { x: -1, y: 0, width: 1, height: 10 } })).toEqual(['clip.x']);
  });

  it('a cookie needs url or domain when rendering html without baseUrl', () => {
    expect(issuePaths(image, { html: 'x', cookies: [{ name: 'a', value: '1' }] })).toEqual(['cookies.0.domain']);
    expect(
      issuePaths(image, {
        html: 'x',
        cookies: [
          { name: 'a', value: '1', domain: 'example.com' },
          { name: 'b', value: '2' },
        ],
      }),
    ).toEqual(['cookies.1.domain']);
    ok(image, { html: 'x', cookies: [{ name: 'a', value: '1', domain: 'example.com' }] });
    ok(image, { html: 'x', cookies: [{ name: 'a', value: '1', url: 'https://example.com/' }] });
    ok(image, { html: 'x', baseUrl: 'https://example.com/', cookies: [{ name: 'a', value: '1' }] });
    ok(image, { url: 'https://example.com/', cookies: [{ name: 'a', value: '1' }] });
    expect(
      issuePaths(image, { url: 'https://example.com/', cookies: [{ name: 'a', value: '1', url: 'ftp://x/' }] }),
    ).toEqual(['cookies.0.url']);
  });
});

describe('pdf cross-field rules', () => {
  it('width and height go together', () => {
    expect(issuePaths(pdf, { html: 'x', width: '8in' })).toEqual(['height']);
    expect(issuePaths(pdf, { html: 'x', height: '8in' })).toEqual(['width']);
  });

  it('format excludes width/height', () => {
    expect(issuePaths(pdf, { html: 'x', format: 'A4', width: '8in', height: '11in' })).toEqual(['format']);
  });

  it('cookie without url/domain for html', () => {
    expect(issuePaths(pdf, { html: 'x', cookies: [{ name: 'a', value: '1' }] })).toEqual(['cookies.0.domain']);
  });

  it('image-only fields are unknown to pdf and the reverse', () => {
    expect(issuePaths(pdf, { html: 'x', fullPage: true })).toEqual(['']);
    expect(issuePaths(image, { html: 'x', landscape: true })).toEqual(['']);
    expect(
      details(pdf, { html: 'x', fullPage: true, quality: 5 })
        .map((d) => d.path)
        .sort(),
    ).toEqual(['fullPage', 'quality']);
  });
});

describe('parseBody details (what the 400 lists)', () => {
  it('names each unknown field, nested ones by their dotted path', () => {
    expect(details(image, { html: 'x', colour: 'red' })).toEqual([
      { path: 'colour', message: 'colour is not a field this request takes: check its spelling, or remove it.' },
    ]);
    expect(details(image, { html: 'x', viewport: { width: 10, height: 10, depth: 3 } })).toEqual([
      {
        path: 'viewport.depth',
        message: 'viewport.depth is not a field this request takes: check its spelling, or remove it.',
      },
    ]);
    expect(
      details(image, { html: 'x', a: 1, b: 2 })
        .map((d) => d.path)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('names each wrongly typed field', () => {
    const d = details(image, { html: 'x', viewport: { width: 'wide', height: 800 }, delay: 'soon', fullPage: 'yes' });
    expect(d.map((x) => x.path).sort()).toEqual(['delay', 'fullPage', 'viewport.width']);
    for (const x of d) expect(x.message.length).toBeGreaterThan(0);
  });

  it('refuses a non-object body with a detail', () => {
    for (const body of [[], null, 'x', 42, [{ html: 'x' }]]) {
      expect(details(image, body), JSON.stringify(body)).toEqual([{ path: '', message: 'expected an object' }]);
    }
  });

  it('a type error does not hide the cross-field errors of the same request', () => {
    // Contract: `details` lists {path, message} per bad field. Zod skips superRefine once a field
    // has a type error, so the client only learns of the missing source / png+quality after fixing
    // `delay` — two round trips for one bad request.
    expect(
      details(image, { delay: 'soon' })
        .map((d) => d.path)
        .sort(),
    ).toEqual(['delay', 'url']);
    expect(
      details(image, { html: 'x', delay: 'soon', quality: 80 })
        .map((d) => d.path)
        .sort(),
    ).toEqual(['delay', 'quality']);
  });
});

describe('credentials in a URL', () => {
  // Chromium keeps them for its browser context, beyond the render: they go in httpCredentials instead.
  it.each([
    ['url', { url: 'http://alice:S3cret@example.com/' }],
    ['url', { url: 'https://alice@example.com/' }],
    ['url', { url: 'https://:S3cret@example.com/' }],
    ['baseUrl', { html: '<p>x</p>', baseUrl: 'https://alice:S3cret@example.com/' }],
    ['webhookUrl', { url: 'https://example.com/', async: true, webhookUrl: 'https://u:p@hooks.example.com/' }],
  ])('refuses them in %s with a 400 saying where they go', (path, body) => {
    for (const schema of [image, pdf]) {
      const found = details(schema, body).find((d) => d.path === path);
      expect(found?.message).toMatch(/may not hold a user name or password \(user:password@host\)/);
    }
    expect(details(image, body).find((d) => d.path === path)?.message).toMatch(
      path === 'webhookUrl' ? /webhook-signature/ : /give them as httpCredentials/,
    );
  });

  it('still takes an @ in the path or query', () => {
    ok(image, { url: 'https://example.com/@alice?to=a@b.example' });
  });
});

describe('cookie sameSite', () => {
  it('is read in any case and given as Playwright spells it', () => {
    for (const [given, expected] of [
      ['lax', 'Lax'],
      ['STRICT', 'Strict'],
      ['none', 'None'],
      ['None', 'None'],
      ['sTrIcT', 'Strict'],
    ] as const) {
      const req = pdf.parse({ url: 'https://example.com/', cookies: [{ name: 'a', value: 'b', sameSite: given }] });
      expect(req.cookies?.[0]?.sameSite).toBe(expected);
    }
    for (const bad of ['laxx', 'strict ', '', 'l']) {
      expect(
        new Set(issuePaths(pdf, { url: 'https://example.com/', cookies: [{ name: 'a', value: 'b', sameSite: bad }] })),
      ).toEqual(new Set(['cookies.0.sameSite']));
    }
  });
});
