// Dependencies point one way: HTTP (src/http, src/web) → services → engines → stores, with the composition
// root (src/app) above them all: it may import anything, and only the command (src/cli.ts) imports it.
// These checks read the source itself, so a new import against that direction fails here before review
// has to spot it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project-root.js';

const ROOT = projectRoot();
const SRC = join(ROOT, 'src');

/** Every .ts file under src/, as a path relative to the project root with forward slashes. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path).split(sep).join('/')] : [];
  });
}

/** Static imports, re-exports and dynamic import() of relative paths, resolved to project paths (no extension). */
function importsOf(file: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*['"]([^'"]+)['"]/g), // side-effect imports
    ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) =>
      relative(ROOT, resolve(ROOT, dirname(file), s))
        .split(sep)
        .join('/')
        .replace(/\.(js|ts)$/, ''),
    );
}

const within = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

const files = sourceFiles().map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

/** `file imports target` for every import from `from` (a predicate on the file) into `into` (a folder). */
function violations(from: (file: string) => boolean, into: string): string[] {
  return files
    .filter(({ file }) => from(file))
    .flatMap(({ file, text }) =>
      importsOf(file, text)
        .filter((target) => within(target, into))
        .map((target) => `${file} imports ${target}`),
    );
}

const SERVICES = [
  'src/jobs',
  'src/monitors',
  'src/auth',
  'src/webhooks',
  'src/operations',
  'src/channels',
  'src/feeds',
];
const ENGINES = ['src/render', 'src/diff', 'src/egress', 'src/pdf'];
/**
 * The persistence tree: the store interfaces and their value types in src/stores/*.ts, and under it one
 * folder per implementation: the Kysely code both databases share (sql/, with sql/sqlite/ and
 * sql/postgres/ for what is their own) and the stored files (files/: local and database).
 */
const STORE_IMPLEMENTATIONS = ['src/stores/sql', 'src/stores/files'];
/**
 * render/ by purpose, each with the groups it may import: the browser (launch, pool, warm pages, sandbox,
 * contexts), loading a page (prepare, waits, steps, navigations, network errors), reading it (text blocks,
 * probes, boxes, geometry) and capturing it (PDF, image, caps). renderer.ts at the top composes them.
 */
const RENDER_GROUPS: Record<string, string[]> = {
  browser: [],
  load: ['browser'],
  'page-reads': [],
  capture: ['browser', 'page-reads'],
  // Markdown to HTML, before any page exists: it needs no other group.
  markdown: [],
  // Which fonts Chromium gets (fonts.dir) and which scripts have one: given to the browser by the composition root.
  fonts: [],
};

describe('layering', () => {
  it('finds the source files and their imports (the checks below would pass vacuously otherwise)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.map((f) => f.file)).toContain('src/app/compose.ts');
    const app = files.find((f) => f.file === 'src/http/app.ts')!;
    expect(importsOf(app.file, app.text)).toContain('src/http/router');
    expect(importsOf('src/x/y.ts', "import type { A } from '../http/schemas/render.js';")).toEqual([
      'src/http/schemas/render',
    ]);
    expect(importsOf('src/x/y.ts', "const m = await import('../../src/http/app.js');")).toEqual(['src/http/app']);
    expect(importsOf('src/x/y.ts', "export {\n  a,\n  b,\n} from '../http/a.js';")).toEqual(['src/http/a']);
  });

  it('nothing outside src/http and the composition root imports from src/http', () => {
    const outside = (file: string) => !within(file, 'src/http') && !within(file, 'src/app');
    expect(violations(outside, 'src/http')).toEqual([]);
  });

  it('the composition root sits above everything: only src/cli.ts imports src/app', () => {
    const below = (file: string) => !within(file, 'src/app') && file !== 'src/cli.ts';
    expect(violations(below, 'src/app')).toEqual([]);
  });

  it('backups (src/backup) are a command of their own: only src/cli.ts imports them', () => {
    const other = (file: string) => !within(file, 'src/backup') && file !== 'src/cli.ts';
    expect(violations(other, 'src/backup')).toEqual([]);
    expect(files.some(({ file }) => within(file, 'src/backup'))).toBe(true);
  });

  it('no service or engine imports a store implementation (only the store interfaces in src/stores)', () => {
    const user = (file: string) => [...SERVICES, ...ENGINES].some((dir) => within(file, dir));
    // The orphan sweep is the one piece of files/ a service runs: it reads stores through their interfaces.
    const allowed = new Set(['src/jobs/sweeper.ts imports src/stores/files/orphans']);
    const found = STORE_IMPLEMENTATIONS.flatMap((dir) => violations(user, dir)).filter((v) => !allowed.has(v));
    expect(found).toEqual([]);
  });

  it('the persistence tree is one folder: nothing is left in the old src/db and src/storage', () => {
    expect(files.filter(({ file }) => within(file, 'src/db') || within(file, 'src/storage'))).toEqual([]);
    for (const dir of [...STORE_IMPLEMENTATIONS, 'src/stores/sql/sqlite', 'src/stores/sql/postgres'])
      expect(
        files.some(({ file }) => within(file, dir)),
        dir,
      ).toBe(true);
  });

  it('render/ is grouped by purpose, and each group imports only the groups below it', () => {
    const groups = new Set(
      files
        .map(({ file }) => file.split('/'))
        .filter((p) => p[1] === 'render' && p.length > 3)
        .map((p) => p[2]),
    );
    expect([...groups].sort()).toEqual([...Object.keys(RENDER_GROUPS)].sort());
    const found = Object.entries(RENDER_GROUPS).flatMap(([group, below]) =>
      Object.keys(RENDER_GROUPS)
        .filter((other) => other !== group && !below.includes(other))
        .flatMap((other) => violations((file) => within(file, `src/render/${group}`), `src/render/${other}`)),
    );
    expect(found).toEqual([]);
  });

  it('diff/ compares pixels and text apart, and neither side imports render code', () => {
    const diff = (file: string) => within(file, 'src/diff');
    expect(violations(diff, 'src/render')).toEqual([]);
    expect(violations((file) => within(file, 'src/diff/pixels'), 'src/diff/text')).toEqual([]);
    expect(violations((file) => within(file, 'src/diff/text'), 'src/diff/pixels')).toEqual([]);
  });

  it('no engine imports a service or the HTTP layer', () => {
    const engine = (file: string) => ENGINES.some((dir) => within(file, dir));
    const above = [...SERVICES, 'src/http', 'src/web'].flatMap((dir) => violations(engine, dir));
    expect(above).toEqual([]);
  });

  it('the stores import no engine, service or HTTP module (only src/domain, the shared value types)', () => {
    const store = (file: string) => within(file, 'src/stores');
    const above = [...ENGINES, ...SERVICES, 'src/http', 'src/web'].flatMap((dir) => violations(store, dir));
    expect(above).toEqual([]);
  });

  it('src/domain imports nothing outside itself: every layer may use it', () => {
    const domain = (file: string) => within(file, 'src/domain');
    const outside = files
      .filter(({ file }) => domain(file))
      .flatMap(({ file, text }) => importsOf(file, text).filter((t) => !within(t, 'src/domain')));
    expect(outside).toEqual([]);
  });

  it("the job queue knows no job kind: no 'capture' literal in src/jobs", () => {
    const literal = /(['"`])capture\1/;
    const found = files.filter(({ file, text }) => within(file, 'src/jobs') && literal.test(text)).map((f) => f.file);
    expect(found).toEqual([]);
  });
});
