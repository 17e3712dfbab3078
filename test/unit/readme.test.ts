// The README is what a new user reads first: short, self-contained (nothing outside the repository), and a
// way into docs/, where the full reference lives. The reference files must hold up too: every relative link
// resolves to a file (and a heading), the configuration table names every setting there is, and the webhook
// verification example is what receivers copy, so it must accept our signatures and refuse forgeries.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/domain/key-material.js';
import { describeSettings } from '../../src/config-load.js';
import { VERIFY_CRYPTO, VERIFY_STANDARDWEBHOOKS } from '../helpers/docs-snippets.js';
import { newMessageId, signedHeaders } from '../../src/webhooks/sign.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const MARKDOWN = ['README.md', ...DOCS];

/** Text outside code: a link or heading shown inside a code block or a code span is not one. */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** The targets of a file's Markdown links and images. */
const linksOf = (md: string) => [...prose(md).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);

/** GitHub's anchors for a file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of prose(md.replace(/`([^`\n]*)`/g, '$1')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = text!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

describe('README', () => {
  const readme = read('README.md');

  it('is under 12 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(12_000);
  });

  it('gives the two quick-start commands', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });

  it('says where the full reference lives: /docs, /openapi.json and every file of docs/', () => {
    expect(readme).toContain('`/docs`');
    expect(readme).toContain('`/openapi.json`');
    const linked = new Set(linksOf(readme).map((l) => l.split('#')[0]));
    for (const doc of DOCS) expect(linked, `README links ${doc}`).toContain(doc);
  });

  it("names each setting it shows by its real variable, the way 'npx pagewatch config' does", () => {
    const settings = new Map(describeSettings().map((s) => [s.path, s.env]));
    const rows = [...readme.matchAll(/^\| `([\w.]+)` \| `(PAGEWATCH_\w+)` \|/gm)];
    expect(rows.length).toBeGreaterThan(4);
    for (const [, path, env] of rows) expect(settings.get(path!), path).toBe(env);
  });
});

describe('README and docs/', () => {
  it.each(MARKDOWN)('%s refers to nothing outside the repository (no ../shared)', (file) => {
    expect(read(file)).not.toMatch(/shared\/|API\.md/);
  });

  it.each(MARKDOWN)('every relative link of %s resolves to a file, and its #anchor to a heading there', (file) => {
    const links = linksOf(read(file)).filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? join(dirname(join(ROOT, file)), decodeURI(path)) : join(ROOT, file);
      expect(existsSync(target), `${file}: ${link}`).toBe(true);
      if (anchor) expect(anchorsOf(readFileSync(target, 'utf8')), `${file}: ${link}`).toContain(anchor);
    }
  });

  it.each(MARKDOWN)('every PAGEWATCH_ variable %s names is a setting (or an example shell variable)', (file) => {
    const known = new Set([...describeSettings().map((s) => s.env), 'PAGEWATCH_ENV', 'PAGEWATCH_KEY']);
    known.add('PAGEWATCH_WEBHOOK_SECRET'); // the receiver's own variable in the verification example
    known.add('PAGEWATCH_TEST_POSTGRES_URL').add('PAGEWATCH_REQUIRE_POSTGRES'); // the tests' PostgreSQL server
    for (const [name] of read(file).matchAll(/PAGEWATCH_[A-Z][A-Z0-9_]*/g)) expect(known, file).toContain(name);
  });
});

describe('docs/configuration.md', () => {
  const configuration = read('docs/configuration.md');

  it.each(describeSettings().map((s) => [s.path, s.env]))('documents %s (%s)', (path, env) => {
    expect(configuration).toContain(`| \`${path}\` | \`${env}\` |`);
  });
});

describe('docs/webhooks.md', () => {
  const webhooks = read('docs/webhooks.md');

  it('holds the verification examples the /docs page shows, word for word', () => {
    expect(webhooks).toContain(`\`\`\`js\n${VERIFY_STANDARDWEBHOOKS}\n\`\`\``);
    expect(webhooks).toContain(`\`\`\`js\n${VERIFY_CRYPTO}\n\`\`\``);
  });

  it('the node:crypto verification example accepts a real signature and refuses forgeries', async () => {
    const block = /```js\n(import \{ createHmac, timingSafeEqual \}[\s\S]*?)```/.exec(webhooks)?.[1];
    expect(block, 'the example is in docs/webhooks.md').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-readme-'));
    try {
      writeFileSync(join(dir, 'verify.mjs'), `${block}\nexport { verify };\n`);
      const { verify } = (await import(pathToFileURL(join(dir, 'verify.mjs')).href)) as {
        verify: (secret: string, headers: Record<string, string>, body: string) => boolean;
      };
      const secret = newWebhookSecret();
      const body = '{"type":"job.succeeded","timestamp":"2026-11-22T10:00:00.000Z","data":{"jobId":"job_1"}}';
      const headers = { ...signedHeaders([newWebhookSecret(), secret], newMessageId(), body) };
      expect(verify(secret, headers, body)).toBe(true); // either of two signatures (rotation) is enough
      expect(verify(secret, headers, body.replace('job_1', 'job_2'))).toBe(false);
      expect(verify(newWebhookSecret(), headers, body)).toBe(false);
      const old = { ...signedHeaders([secret], newMessageId(), body, new Date(Date.now() - 10 * 60_000)) };
      expect(verify(secret, old, body)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
