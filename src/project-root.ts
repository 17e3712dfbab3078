import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The directory holding package.json — the same whether running from src/ (tests) or dist/src/ (built). */
export function projectRoot(from = import.meta.dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${from}`);
    dir = parent;
  }
  return dir;
}
