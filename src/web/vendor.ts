// The browser libraries the dashboard is built on (Preact, htm, Preact Signals), served from the
// installed packages rather than from copies in the repository: a copy could silently stay behind an
// upgrade, and these are read once at startup like every other asset. The browser cannot resolve a bare
// specifier ("preact/hooks") without an import map, and an inline import map would need its own CSP
// hash, so each module's imports are rewritten to the served path of the module they name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project-root.js';

interface VendoredModule {
  /** The specifier other modules import it by. */
  specifier: string;
  /** The package it comes from, and its ES module build inside it. */
  pkg: string;
  file: string;
  /** Its name under /assets/vendor/. */
  served: string;
}

export const VENDORED: readonly VendoredModule[] = [
  { specifier: 'preact', pkg: 'preact', file: 'dist/preact.mjs', served: 'preact.js' },
  { specifier: 'preact/hooks', pkg: 'preact', file: 'hooks/dist/hooks.mjs', served: 'preact-hooks.js' },
  { specifier: 'htm', pkg: 'htm', file: 'dist/htm.mjs', served: 'htm.js' },
  {
    specifier: '@preact/signals-core',
    pkg: '@preact/signals-core',
    file: 'dist/signals-core.mjs',
    served: 'signals-core.js',
  },
  { specifier: '@preact/signals', pkg: '@preact/signals', file: 'dist/signals.mjs', served: 'signals.js' },
];

export const VENDOR_FOLDER = 'vendor';

const packageDir = (pkg: string): string => join(projectRoot(), 'node_modules', pkg);

/** A vendored package's package.json: its version and licence. */
function packageMeta(pkg: string): { version: string; license: string } {
  return JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8')) as {
    version: string;
    license: string;
  };
}

/** The installed version of a vendored package. */
export const installedVersion = (pkg: string): string => packageMeta(pkg).version;

/**
 * The published builds carry no licence comment, so one is put first: the package, its version, its
 * licence and the copyright line of its LICENSE file.
 */
function licenceHeader(pkg: string): string {
  const meta = packageMeta(pkg);
  const copyright = readFileSync(join(packageDir(pkg), 'LICENSE'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.startsWith('Copyright'));
  return `/*! ${pkg} ${meta.version} | ${meta.license} licence${copyright ? ` | ${copyright}` : ''} */\n`;
}

/** Every `from"x"` / `import"x"` naming a vendored module, rewritten to its served path. */
function rewriteImports(source: string, file: string): string {
  return source.replace(/\b(from|import)\s*(["'])([^"']+)\2/g, (whole, keyword: string, _q, specifier: string) => {
    if (specifier.startsWith('.') || specifier.startsWith('/')) return whole;
    const target = VENDORED.find((m) => m.specifier === specifier);
    if (!target) throw new Error(`${file} imports ${specifier}, which is not vendored`);
    return `${keyword}"/assets/${VENDOR_FOLDER}/${target.served}"`;
  });
}

/** Served name ("vendor/preact.js") → the module's text as served. */
export function vendoredModules(): Map<string, string> {
  return new Map(
    VENDORED.map((m) => {
      const path = join(packageDir(m.pkg), m.file);
      // The source maps are not served: their comment would only send the browser's tools after a 404.
      const source = readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => !line.startsWith('//# sourceMappingURL='))
        .join('\n');
      return [`${VENDOR_FOLDER}/${m.served}`, licenceHeader(m.pkg) + rewriteImports(source, path)];
    }),
  );
}
