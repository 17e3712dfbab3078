// The dashboard's libraries are served from the installed packages: each served module says which
// version it is, that is the installed one, and no import is left that a browser could not resolve.
import { describe, expect, it } from 'vitest';
import { installedVersion, VENDOR_FOLDER, VENDORED, vendoredModules } from '../../src/web/vendor.js';

const modules = vendoredModules();
const specifiers = (text: string): string[] =>
  [...text.matchAll(/\b(?:from|import)\s*["']([^"']+)["']/g)].map((m) => m[1]!);

describe('vendored browser modules', () => {
  it.each(VENDORED.map((m) => [m.specifier, m] as const))('%s names its installed version and licence', (_, m) => {
    const header = /^\/\*! (\S+) (\S+) \| (\S+) licence/.exec(modules.get(`${VENDOR_FOLDER}/${m.served}`)!);
    expect(header?.slice(1, 3)).toEqual([m.pkg, installedVersion(m.pkg)]);
    expect(['MIT', 'Apache-2.0']).toContain(header?.[3]);
  });

  it('imports only served vendored modules, by absolute path', () => {
    const served = new Set([...modules.keys()].map((name) => `/assets/${name}`));
    const imports = [...modules.values()].flatMap(specifiers);
    expect(imports.length).toBeGreaterThan(4);
    for (const specifier of imports) expect(served, specifier).toContain(specifier);
  });
});
