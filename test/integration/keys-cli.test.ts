// `pagewatch keys …` on a fresh data directory, as an operator runs it (the built CLI, its own
// process): what each command prints and its exit code. No service and no browser.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKeysCli } from '../helpers/keys-cli.js';

const ISO = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`;

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-keys-cli-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const keys = (...args: string[]) => runKeysCli(dataDir, args);

describe('pagewatch keys', () => {
  let id: string;
  let prefix: string;

  it('list on a new database: no keys', async () => {
    expect(await keys('list')).toEqual({ code: 0, stdout: 'no keys\n', stderr: '' });
  });

  it('create prints the id, name, key and webhook secret once', async () => {
    const run = await keys('create', '--name', 'ci deploy');
    expect(run.code).toBe(0);
    const m = new RegExp(
      String.raw`^id:             (key_[0-9a-f]{16})\n` +
        String.raw`name:           ci deploy\n` +
        String.raw`key:            (pw_live_[A-Za-z0-9_-]{32})\n` +
        String.raw`webhook secret: whsec_[A-Za-z0-9+/]{43}=\n` +
        String.raw`Store both now: they are not shown again \(only a hash of the key is kept\)\.\n$`,
    ).exec(run.stdout);
    expect(m, run.stdout).not.toBeNull();
    id = m![1]!;
    prefix = m![2]!.slice(0, 12);
  });

  it('create without a name is a usage error', async () => {
    expect(await keys('create')).toEqual({ code: 2, stdout: '', stderr: 'usage: pagewatch keys create --name NAME\n' });
  });

  it('list prints one tab-separated line per key', async () => {
    const run = await keys('list');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^${id}\\t${prefix}…\\tci deploy\\tactive\\tcreated ${ISO}\\tlast used never\\n$`),
    );
  });

  it('rotate-secret prints the new secret and how long the old one still signs', async () => {
    const run = await keys('rotate-secret', id, '--grace-hours', '2');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^webhook secret: whsec_\S+\nWebhooks carry signatures with both the new and the old secret for 2 h; switch your receivers within that time\.\n$/,
    );
    const now = await keys('rotate-secret', id, '--grace-hours', '0');
    expect(now.stdout).toMatch(/^webhook secret: whsec_\S+\nThe old secret no longer signs\.\n$/);
    expect(await keys('rotate-secret', id, '--grace-hours', '-1')).toEqual({
      code: 2,
      stdout: '',
      stderr: '--grace-hours takes a number of hours, 0 or more\n',
    });
    expect(await keys('rotate-secret', 'key_missing')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'no active key with id key_missing\n',
    });
  });

  it('revoke revokes once; list shows when', async () => {
    expect(await keys('revoke', id)).toEqual({ code: 0, stdout: `revoked ${id}\n`, stderr: '' });
    expect(await keys('revoke', id)).toEqual({ code: 1, stdout: '', stderr: `no active key with id ${id}\n` });
    expect((await keys('list')).stdout).toMatch(new RegExp(`\\trevoked ${ISO}\\tcreated ${ISO}\\t`));
  });

  it('delete needs --purge, then deletes the key and says what went with it', async () => {
    const refused = await keys('delete', id);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^usage: pagewatch keys delete ID --purge\n--purge is required/);
    expect(await keys('delete', id, '--purge')).toEqual({
      code: 0,
      // Revoked before: no "revoked" line.
      stdout: [
        'jobs:               0',
        'job results:        0',
        'monitors:           0',
        'captures:           0',
        'webhook deliveries: 0',
        'webhook attempts:   0',
        'idempotency keys:   0',
        `deleted ${id}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(await keys('delete', id, '--purge')).toEqual({ code: 1, stdout: '', stderr: `no key with id ${id}\n` });
    expect((await keys('list')).stdout).toBe('no keys\n');
  });

  it('delete --purge of an active key revokes it first', async () => {
    const made = /^id:\s+(\S+)$/m.exec((await keys('create', '--name', 'short-lived')).stdout)![1]!;
    const run = await keys('delete', '--purge', made);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^revoked ${made}\\njobs: {15}0\\n[^]*deleted ${made}\\n$`));
  });

  it('an unknown subcommand prints the usage', async () => {
    const run = await keys('frobnicate');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^usage: pagewatch <command>\n/);
  });
});
