// The two webhook verification examples of docs/webhooks.md ("Verifying in Node"), as text: the tests run
// them against real signatures, so the snippets readers copy are the ones that are checked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCS_DIR } from '../../src/web/docs-files.js';

const blocks = [...readFileSync(join(DOCS_DIR, 'webhooks.md'), 'utf8').matchAll(/^```js\n([\s\S]*?)\n```$/gm)].map(
  (m) => m[1]!,
);

function snippet(marker: string): string {
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`docs/webhooks.md has ${found.length} js examples with ${marker}`);
  return found[0]!;
}

export const VERIFY_STANDARDWEBHOOKS = snippet("from 'standardwebhooks'");
export const VERIFY_CRYPTO = snippet("from 'node:crypto'");
