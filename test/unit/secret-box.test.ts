// The secret box (AES-256-GCM, "enc:v1:…") and where its key comes from (secrets.key, or a generated
// dataDir/secret.key with mode 0600).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSecretsKey } from '../../src/secrets/key-file.js';
import { isSealed, parseSecretKey, SecretBox, SecretBoxError } from '../../src/secrets/secret-box.js';

const box = new SecretBox(randomBytes(32));

function failure(f: () => unknown): SecretBoxError {
  try {
    f();
  } catch (err) {
    if (err instanceof SecretBoxError) return err;
    throw err;
  }
  throw new Error('expected a SecretBoxError');
}

/** Flips one bit of the base64url part `part` (1 = iv, 2 = ciphertext, 3 = tag) of a sealed value. */
function tamper(sealed: string, part: number): string {
  const fields = sealed.slice('enc:v1:'.length).split(':');
  const bytes = Buffer.from(fields[part]!, 'base64url');
  bytes[0]! ^= 0x01;
  fields[part] = bytes.toString('base64url');
  return `enc:v1:${fields.join(':')}`;
}

describe('SecretBox', () => {
  it('round-trips any text, including empty and non-ASCII, and never shows it', () => {
    for (const plaintext of ['', 'Bearer s3cr3t-token', 'pässwörd ✓ 🔑', 'x'.repeat(10_000)]) {
      const sealed = box.encrypt(plaintext, 'mon_1');
      expect(sealed).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]*:[A-Za-z0-9_-]{22}$/);
      expect(isSealed(sealed)).toBe(true);
      if (plaintext) expect(sealed).not.toContain(plaintext);
      expect(box.decrypt(sealed, 'mon_1')).toBe(plaintext);
    }
  });

  it('uses a fresh 96-bit IV for every value: the same secret never seals the same way twice', () => {
    const a = box.encrypt('same', 'ctx');
    const b = box.encrypt('same', 'ctx');
    expect(a).not.toBe(b);
    expect(Buffer.from(a.split(':')[3]!, 'base64url')).toHaveLength(12);
  });

  it('detects a changed IV, ciphertext or tag (the auth tag is checked)', () => {
    const sealed = box.encrypt('Bearer s3cr3t-token', 'mon_1');
    for (const part of [1, 2, 3])
      expect(failure(() => box.decrypt(tamper(sealed, part), 'mon_1')).reason).toBe('tampered');
  });

  it('does not open a value moved to another record (the context is authenticated)', () => {
    expect(failure(() => box.decrypt(box.encrypt('secret', 'mon_1'), 'mon_2')).reason).toBe('tampered');
  });

  it('refuses a value sealed under another key, saying so, and even a forged key id does not help', () => {
    const other = new SecretBox(randomBytes(32));
    const sealed = other.encrypt('secret', 'mon_1');
    const err = failure(() => box.decrypt(sealed, 'mon_1'));
    expect(err.reason).toBe('wrong_key');
    expect(err.message).toContain('another key');
    const forged = sealed.replace(`:${other.keyId}:`, `:${box.keyId}:`);
    expect(failure(() => box.decrypt(forged, 'mon_1')).reason).toBe('tampered');
  });

  it('refuses what is not a sealed value', () => {
    for (const value of ['plaintext', 'enc:v1:', 'enc:v1:abcd:AA:AA:AA', `enc:v1:${box.keyId}:only-two`]) {
      expect(failure(() => box.decrypt(value)).reason).toBe('malformed');
    }
  });

  it('takes 32-byte keys as 64 hex digits or 44 base64 characters, nothing else', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
    expect(() => parseSecretKey(key.toString('hex').slice(2))).toThrow(/32 bytes/);
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('loadSecretsKey', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const fresh = () => (dir = mkdtempSync(join(tmpdir(), 'pagewatch-key-')));

  it('uses secrets.key when set and writes no file', () => {
    fresh();
    const key = randomBytes(32);
    expect(loadSecretsKey(key.toString('base64'), dir)).toEqual({ key, source: 'config' });
    expect(() => statSync(join(dir, 'secret.key'))).toThrow();
  });

  it('generates dataDir/secret.key once, with mode 0600, and reuses it', () => {
    fresh();
    const first = loadSecretsKey('', join(dir, 'data'));
    expect(first.source).toBe('generated');
    const path = join(dir, 'data', 'secret.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(`${first.key.toString('hex')}\n`);
    const second = loadSecretsKey('', join(dir, 'data'));
    expect(second).toEqual({ key: first.key, source: 'file', path });
  });

  it('is generated once when several starts race for it: one writes it, all read the same whole key', async () => {
    fresh();
    // The built module (as the CLI tests use dist/), in separate processes that all start loading
    // at the same instant.
    const module = resolve(import.meta.dirname, '../../dist/src/secrets/key-file.js');
    const startAt = Date.now() + 1500;
    const script = `import { loadSecretsKey } from ${JSON.stringify(module)};
      while (Date.now() < ${startAt});
      const k = loadSecretsKey('', ${JSON.stringify(dir)});
      console.log(k.source + ' ' + k.key.toString('hex'));`;
    const runs = await Promise.all(
      Array.from({ length: 6 }, () => promisify(execFile)(process.execPath, ['--input-type=module', '-e', script])),
    );
    const outcomes = runs.map((r) => r.stdout.trim().split(' '));
    expect(outcomes.filter(([source]) => source === 'generated')).toHaveLength(1);
    expect(new Set(outcomes.map(([, key]) => key))).toEqual(
      new Set([readFileSync(join(dir, 'secret.key'), 'utf8').trim()]),
    );
    expect(readdirSync(dir)).toEqual(['secret.key']); // no temporary file left behind
  }, 30_000);

  it('refuses a key file other users can read, naming the file and the fix', () => {
    fresh();
    loadSecretsKey('', dir);
    chmodSync(join(dir, 'secret.key'), 0o644);
    expect(() => loadSecretsKey('', dir)).toThrow(/secret\.key can be read by other users \(mode 0644\).*chmod 600/);
  });

  it('refuses a key file that does not hold a key rather than replacing it', () => {
    fresh();
    writeFileSync(join(dir, 'secret.key'), 'not a key\n', { mode: 0o600 });
    expect(() => loadSecretsKey('', dir)).toThrow(/secret\.key does not hold a secrets key/);
    expect(readFileSync(join(dir, 'secret.key'), 'utf8')).toBe('not a key\n');
  });
});
