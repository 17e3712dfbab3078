// Which of the world's main scripts have a font on this machine, as Chromium's fontconfig sees them: asked
// of `fc-list` once per character below (about 20 ms each, run together), at start and when fonts.dir
// changes. A script without one renders as boxes; /ready says so (200, with a warning), and each render
// lists the characters it could not draw (missing-glyphs.ts).
import { execFile } from 'node:child_process';

export interface ScriptProbe {
  script: string;
  /** What the warning calls it: the languages it is read for. */
  label: string;
  /** An fc-list pattern that a font able to draw the script matches. */
  pattern: string;
}

export const SCRIPT_PROBES: readonly ScriptProbe[] = [
  { script: 'Han', label: 'Han (Chinese, Japanese kanji)', pattern: ':charset=4e2d' }, // 中
  { script: 'Kana', label: 'Kana (Japanese)', pattern: ':charset=3042' }, // あ
  { script: 'Hangul', label: 'Hangul (Korean)', pattern: ':charset=d55c' }, // 한
  { script: 'Devanagari', label: 'Devanagari (Hindi, Marathi, Nepali)', pattern: ':charset=939' }, // ह
  { script: 'Arabic', label: 'Arabic (Arabic, Persian, Urdu)', pattern: ':charset=639' }, // ع
  // Monochrome emoji exist in DejaVu Sans; what is missing without a colour font is the colour.
  { script: 'Emoji', label: 'colour emoji', pattern: ':charset=1f600:color=True' }, // 😀
];

export interface ScriptCoverage {
  /** Scripts no font covers (their labels). */
  missing: string[];
  /** Set when the check could not run (no fc-list): nothing is known about the fonts. */
  unknown?: string;
  /** What /ready and the log say about it; absent when every script has a font. */
  warning?: string;
}

type Outcome = 'found' | 'missing' | { error: string };

function probe(pattern: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve) => {
    // -q: no output; exit status 1 when no font matches.
    execFile('fc-list', ['-q', pattern], { env, timeout: 10_000 }, (err) => {
      if (!err) return resolve('found');
      const code: unknown = (err as { code?: unknown }).code; // the exit status, or why it did not run
      if (typeof code === 'number') return resolve('missing');
      resolve({ error: code === 'ENOENT' ? 'fc-list (package fontconfig) is not installed' : String(err.message) });
    });
  });
}

/** The scripts without a font for a process started with `env` (Chromium's). */
export async function scriptCoverage(env: NodeJS.ProcessEnv): Promise<ScriptCoverage> {
  const outcomes = await Promise.all(SCRIPT_PROBES.map((p) => probe(p.pattern, env)));
  const failed = outcomes.find((o): o is { error: string } => typeof o === 'object');
  const coverage: ScriptCoverage = failed
    ? { missing: [], unknown: `the fonts could not be checked: ${failed.error}` }
    : { missing: SCRIPT_PROBES.filter((_, i) => outcomes[i] === 'missing').map((p) => p.label) };
  const warning = coverageWarning(coverage);
  return warning ? { ...coverage, warning } : coverage;
}

/** The warning /ready gives, or none. */
export function coverageWarning(coverage: ScriptCoverage): string | undefined {
  if (coverage.unknown) return coverage.unknown;
  if (!coverage.missing.length) return undefined;
  return (
    `no font for ${coverage.missing.join(', ')}: such text renders as empty boxes. Install fonts-noto-core, ` +
    'fonts-noto-cjk and fonts-noto-color-emoji (Debian/Ubuntu), or put fonts in fonts.dir'
  );
}
