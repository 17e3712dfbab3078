// Files a test looks through for what a render may have left on disk (downloads, artifacts).
import { readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Regular files under `dir`, recursively; what cannot be read (or is removed meanwhile) is passed over. */
export function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(d, name);
      try {
        const st = statSync(path);
        if (st.isDirectory()) walk(path);
        else if (st.isFile()) found.push(path);
      } catch {
        // removed while we looked, or not ours to read
      }
    }
  };
  walk(dir);
  return found;
}

/** os.tmpdir()/playwright-artifacts-*: where Playwright would put downloads. */
export function playwrightArtifactDirs(): string[] {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith('playwright-artifacts-'))
    .map((name) => join(tmpdir(), name));
}
