// Every regular expression the service runs is linear in its input, or bounded by a cap on that input.
// The test finds every regex literal and every `new RegExp(...)` in src/**/*.ts with the TypeScript
// compiler API, then checks each two ways:
//  (a) the recheck ReDoS checker must not call it vulnerable (exponential or polynomial backtracking);
//  (b) adversarial inputs built here: for each quantified piece, a run of 1 MiB (the largest request body,
//      and more than any capped field allows) of a character the piece accepts, after a prefix that
//      reaches the piece and before a character that forces a mismatch. A linear regex runs such an
//      input in a few ms; a quadratic one takes minutes (the CSS-length regex of PDF margins took ~8 s
//      for 160,000 spaces). Each run must finish within RUN_BOUND_MS.
// src/web/static is not searched: its .js files (among them the vendored cronstrue.min.js) run in the
// user's browser, not in the service. A `new RegExp` whose argument is not a literal cannot be checked
// here, so it must be listed in DYNAMIC_ALLOWED with the reason it is safe: a new one fails this test
// until someone has looked at it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import { checkSync } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
/** Browser code, not the service's (see the comment at the top). */
const EXCLUDED_DIRS = [join(SRC, 'web/static')];

/** One run over 1 MiB: a linear regex takes a few ms, a quadratic one minutes. Generous for a busy 2-core CI. */
const RUN_BOUND_MS = 200;
/** A run still going after this long is stopped (the worker is ended) and counted as a failure. */
const WATCHDOG_MS = 5_000;
const RUN_CHARS = 1024 * 1024;

/** `new RegExp(expr)` with a non-literal argument, by file:line, each with the reason it is safe. */
const DYNAMIC_ALLOWED: Record<string, string> = {
  'src/pdf/archive/xmp.ts:212':
    'built from constant XMP property names (dots escaped); each branch one negated class between literals',
  'src/render/page-reads/product-values.ts:99':
    'built from constant stock phrases (literal words, a few with one \\d+ between literals), between two lookarounds',
  'src/stores/file-store.ts:34': 'built from the constant NAME, a character class with a bounded repeat, anchored',
  'src/stores/file-store.ts:35': 'built from the constant NAME, a character class with a bounded repeat, anchored',
};

interface Found {
  where: string;
  source: string;
  flags: string;
}

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!EXCLUDED_DIRS.includes(path)) tsFiles(path, out);
    } else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

function findRegexes(): { literals: Found[]; dynamic: Found[] } {
  const literals: Found[] = [];
  const dynamic: Found[] = [];
  for (const file of tsFiles(SRC)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) =>
      `${relative(ROOT, file)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = (node as ts.RegularExpressionLiteral).text;
        const end = text.lastIndexOf('/');
        literals.push({ where: where(node), source: text.slice(1, end), flags: text.slice(end + 1) });
      }
      if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(sf) === 'RegExp') {
        const [pattern, flags] = node.arguments ?? [];
        if (pattern && ts.isStringLiteralLike(pattern) && (!flags || ts.isStringLiteralLike(flags))) {
          literals.push({ where: where(node), source: pattern.text, flags: flags ? flags.text : '' });
        } else {
          dynamic.push({ where: where(node), source: node.getText(sf), flags: '' });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { literals, dynamic };
}

// --- Adversarial inputs: a small parser for the regex syntax the service uses ---

interface Quant {
  min: number;
  max: number;
}
type Node =
  | { kind: 'atom'; src: string; quant?: Quant }
  | { kind: 'anchor'; src: string; quant?: Quant }
  | { kind: 'group'; alts: Node[][]; lookaround: boolean; src: string; quant?: Quant };

function parse(source: string): Node[][] {
  let i = 0;
  const parseAlts = (): Node[][] => {
    const alts: Node[][] = [[]];
    while (i < source.length && source[i] !== ')') {
      if (source[i] === '|') {
        i++;
        alts.push([]);
        continue;
      }
      const start = i;
      let node: Node;
      const c = source[i]!;
      if (c === '\\') {
        i += 2;
        const e = source[i - 1]!;
        if ((e === 'p' || e === 'P' || e === 'u' || e === 'k') && /[{<]/.test(source[i] ?? '')) {
          while (source[i] !== '}' && source[i] !== '>') i++;
          i++;
        } else if (e === 'u') i += 4;
        else if (e === 'x') i += 2;
        node = /[bB1-9]/.test(e) ? { kind: 'anchor', src: source.slice(start, i) } : { kind: 'atom', src: '' };
        if (node.kind === 'atom') node.src = source.slice(start, i);
      } else if (c === '[') {
        i++;
        if (source[i] === '^') i++;
        if (source[i] === ']') i++;
        while (source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
        i++;
        node = { kind: 'atom', src: source.slice(start, i) };
      } else if (c === '(') {
        i++;
        let lookaround = false;
        if (source[i] === '?') {
          const m = /^\?(<=|<!|=|!|:|<[A-Za-z_]\w*>)/.exec(source.slice(i))!;
          lookaround = !m[1]!.startsWith(':') && !/^<\w/.test(m[1]!);
          i += m[0].length;
        }
        const alts = parseAlts();
        i++; // ')'
        node = { kind: 'group', alts, lookaround, src: source.slice(start, i) };
      } else if (c === '^' || c === '$') {
        i++;
        node = { kind: 'anchor', src: c };
      } else {
        i++;
        node = { kind: 'atom', src: c };
      }
      const q = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(source.slice(i));
      if (q) {
        i += q[0].length;
        node.quant = q[1]
          ? { min: q[1] === '+' ? 1 : 0, max: q[1] === '?' ? 1 : Infinity }
          : { min: Number(q[2]), max: q[3] === undefined ? Number(q[2]) : q[4] ? Number(q[4]) : Infinity };
      }
      alts[alts.length - 1]!.push(node);
    }
    return alts;
  };
  return parseAlts();
}

const POOL = [
  ' ',
  'a',
  '1',
  'A',
  '-',
  '.',
  ',',
  '_',
  ':',
  '/',
  '\\',
  '[',
  ']',
  '"',
  "'",
  '<',
  '=',
  '\u00e9',
  '\u00a0',
  '€',
  '\n',
  '\u001b',
  '\u0000',
  ...Array.from({ length: 95 }, (_, k) => String.fromCharCode(32 + k)),
];

/** Characters (at most two, a space among them when it fits) that one atom accepts. */
function acceptedChars(src: string, flags: string): string[] {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${src})$`, flags);
  } catch {
    return [];
  }
  const fits = POOL.filter((c) => re.test(c));
  return [...new Set([fits[0], fits.includes(' ') ? ' ' : undefined])].filter((c): c is string => c !== undefined);
}

/** A short string matching a node once (its first alternative, each piece its minimum times). */
function witness(node: Node, flags: string): string {
  if (node.kind === 'anchor') return '';
  if (node.kind === 'group') return node.lookaround ? '' : seqWitness(node.alts[0]!, flags);
  return acceptedChars(node.src, flags)[0] ?? '';
}
const seqWitness = (seq: Node[], flags: string) =>
  seq.map((n) => witness(n, flags).repeat(n.quant ? Math.max(n.quant.min, 0) : 1)).join('');

interface Attack {
  prefix: string;
  unit: string;
  suffix: string;
}
const SUFFIXES = ['\u0000', ' \u0000', 'x'];

/** For each repeated piece: what reaches it, then a long run of what it accepts, then a mismatch. */
function attacks(source: string, flags: string): Attack[] {
  const out = new Map<string, Attack>();
  const add = (prefix: string, unit: string) => {
    if (!unit) return;
    for (const suffix of SUFFIXES) out.set(JSON.stringify([prefix, unit, suffix]), { prefix, unit, suffix });
  };
  const walk = (seq: Node[], before: string) => {
    let prefix = before;
    for (const node of seq) {
      if (node.quant && node.quant.max > 1) {
        if (node.kind === 'group') add(prefix, witness(node, flags));
        else if (node.kind === 'atom') for (const c of acceptedChars(node.src, flags)) add(prefix, c);
      }
      if (node.kind === 'group') for (const alt of node.alts) walk(alt, prefix);
      prefix += witness(node, flags).repeat(node.quant ? node.quant.min : 1);
    }
  };
  for (const alt of parse(source)) walk(alt, '');
  return [...out.values()];
}

// --- Runs, in a worker so a catastrophic one can be stopped ---

const WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ source, flags, prefix, unit, suffix, chars }) => {
  const re = new RegExp(source, flags.replace(/[gy]/g, ''));
  const input = prefix + unit.repeat(Math.ceil(chars / unit.length)) + suffix;
  const t0 = performance.now();
  re.test(input);
  parentPort.postMessage(performance.now() - t0);
});
`;

interface Timing {
  where: string;
  source: string;
  attack: Attack;
  ms: number;
}

async function timeAll(regexes: Found[]): Promise<Timing[]> {
  const jobs = regexes.flatMap((r) => attacks(r.source, r.flags).map((attack) => ({ ...r, attack })));
  const timings: Timing[] = [];
  let worker = new Worker(WORKER, { eval: true });
  try {
    for (const job of jobs) {
      const running = worker;
      const ms = await new Promise<number>((resolve, reject) => {
        const done = (value: number) => {
          clearTimeout(timer);
          running.off('message', done).off('error', reject);
          resolve(value);
        };
        const timer = setTimeout(() => done(Infinity), WATCHDOG_MS);
        running.on('message', done).on('error', reject);
        running.postMessage({ source: job.source, flags: job.flags, ...job.attack, chars: RUN_CHARS });
      });
      timings.push({ where: job.where, source: job.source, attack: job.attack, ms });
      if (ms === Infinity) {
        await running.terminate();
        worker = new Worker(WORKER, { eval: true });
      }
    }
  } finally {
    await worker.terminate();
  }
  return timings;
}

const { literals, dynamic } = findRegexes();

describe('regex audit', () => {
  it('finds the regexes (the search itself works)', () => {
    expect(literals.length).toBeGreaterThan(50);
    expect(literals.some((r) => r.where.startsWith('src/http/schemas/render.ts'))).toBe(true);
  });

  it('lists every dynamic new RegExp with a reason, and no stale entry', () => {
    expect(dynamic.map((d) => d.where).sort()).toEqual(Object.keys(DYNAMIC_ALLOWED).sort());
  });

  it('recheck finds none vulnerable', () => {
    const vulnerable = literals
      .map((r) => ({ ...r, result: checkSync(r.source, r.flags) }))
      .filter((r) => r.result.status === 'vulnerable')
      .map((r) => {
        const complexity = 'complexity' in r.result ? r.result.complexity?.summary : '';
        const attack = 'attack' in r.result ? r.result.attack?.pattern : '';
        return `${r.where} /${r.source}/${r.flags}: ${complexity}, e.g. ${attack}`;
      });
    expect(vulnerable).toEqual([]);
  });

  it(`runs each adversarial input of ${RUN_CHARS} characters within ${RUN_BOUND_MS} ms`, async () => {
    const timings = await timeAll(literals);
    expect(timings.length).toBeGreaterThan(literals.length);
    const slow = timings
      .filter((t) => t.ms > RUN_BOUND_MS)
      .map(
        (t) =>
          `${t.where} /${t.source}/: ${t.ms === Infinity ? `still running after ${WATCHDOG_MS} ms` : `${Math.round(t.ms)} ms`}` +
          ` for ${JSON.stringify(t.attack.prefix)} + ${JSON.stringify(t.attack.unit)} × ${RUN_CHARS} + ${JSON.stringify(t.attack.suffix)}`,
      );
    const worst = [...timings].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(
      `${timings.length} runs over ${literals.length} regexes; slowest: ` +
        worst.map((t) => `${t.where} ${t.ms === Infinity ? '∞' : t.ms.toFixed(1)} ms`).join(', '),
    );
    expect(slow).toEqual([]);
  }, 600_000);
});
