// The README's configuration table is what operators read; it must name every setting there is. Its
// webhook verification example is what receivers copy; it must accept our signatures and refuse forgeries.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/auth/key-material.js';
import { describeSettings } from '../../src/config.js';
import { newMessageId, signedHeaders } from '../../src/webhooks/sign.js';

describe('README', () => {
  const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

  it.each(describeSettings().map((s) => [s.path, s.env]))('documents %s (%s)', (path, env) => {
    expect(readme).toContain(`| \`${path}\` | \`${env}\` |`);
  });

  it('gives the two quick-start commands', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });

  it('the node:crypto verification example accepts a real signature and refuses forgeries', async () => {
    const block = /```js\n(import \{ createHmac, timingSafeEqual \}[\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'the example is in the README').toBeDefined();
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
