// Where the secrets key comes from: `secrets.key` when set, else `dataDir/secret.key`, generated on
// the first start. The file is written whole under a temporary name opened with O_EXCL, then linked
// into place (link(2) fails if the name exists): two first starts at once never both write a key,
// and neither ever reads a half-written one. A file another user could read, or that does not hold a
// key, stops the start with an error that says so — never a silently regenerated key.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseSecretKey, SECRET_KEY_BYTES } from './secret-box.js';

export const KEY_FILE_NAME = 'secret.key';

export interface LoadedKey {
  key: Buffer;
  source: 'config' | 'file' | 'generated';
  path?: string;
}

export function loadSecretsKey(configured: string, dataDir: string): LoadedKey {
  if (configured !== '') return { key: parseSecretKey(configured), source: 'config' };
  const path = join(dataDir, KEY_FILE_NAME);
  if (generateKeyFile(path)) return { key: readKeyFile(path), source: 'generated', path };
  return { key: readKeyFile(path), source: 'file', path };
}

/** True when this call created the file; false when one was there already. */
function generateKeyFile(path: string): boolean {
  if (existsSync(path)) return false;
  mkdirSync(join(path, '..'), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600); // O_CREAT | O_EXCL
  try {
    writeSync(fd, `${randomBytes(SECRET_KEY_BYTES).toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false; // another start (or an earlier one) made it
    throw err;
  } finally {
    unlinkSync(temp);
  }
}

function readKeyFile(path: string): Buffer {
  const stat = statSync(path);
  if (!stat.isFile()) throw new Error(`${path} must be a file holding the secrets key`);
  if ((stat.mode & 0o077) !== 0) {
    throw new Error(
      `${path} can be read by other users (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}); it holds ` +
        `the key of monitor secrets: chmod 600 it`,
    );
  }
  try {
    return parseSecretKey(readFileSync(path, 'utf8'));
  } catch {
    throw new Error(
      `${path} does not hold a secrets key (expected 64 hex digits); restore the file that was there, or ` +
        `remove it only if no monitor has secrets (they could not be decrypted any more)`,
    );
  }
}
