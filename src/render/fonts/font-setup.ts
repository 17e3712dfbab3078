// The fonts Chromium draws with: the system's (fontconfig), plus `fonts.dir` when set. For that directory
// Chromium is launched with a fontconfig file of its own (fonts-conf.ts), and since Chromium reads its
// fonts only when it starts, a font added to (or removed from) the directory recycles the browser: the
// renders in flight finish on the old one, the next ones get the new fonts. Also answers which scripts
// have no font at all (script-coverage.ts), for /ready.
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Lifecycle } from '../../lifecycle.js';
import type { Logger } from '../../log.js';
import { baseFontconfigFile, fontsConf, isFontFile, isWebFontFile } from './fonts-conf.js';
import { scriptCoverage, type ScriptCoverage } from './script-coverage.js';

/** Changes this close together (a copy in progress, several files) recycle the browser once. */
export const SETTLE_MS = 500;

export interface FontSetupOptions {
  /** fonts.dir: a directory of extra fonts; empty = the system's fonts only. */
  dir: string;
  log: Logger;
  /** Called once the directory's fonts changed (after SETTLE_MS of quiet): the browser is to be recycled. */
  onChange: () => void;
  /** The environment Chromium would otherwise inherit (its FONTCONFIG_FILE is honoured). */
  env?: NodeJS.ProcessEnv;
}

export class FontSetup implements Lifecycle {
  readonly name = 'fonts';
  private confDir: string | undefined;
  private confFile: string | undefined;
  private watcher: FSWatcher | undefined;
  private settle: NodeJS.Timeout | undefined;
  private coverage: Promise<ScriptCoverage> | undefined;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly warned = new Set<string>();

  constructor(private readonly opts: FontSetupOptions) {
    this.baseEnv = { ...(opts.env ?? process.env) }; // as it is now: every launch gets the same
  }

  async start(): Promise<void> {
    if (this.opts.dir) {
      const dir = resolve(this.opts.dir);
      await mkdir(dir, { recursive: true });
      // A private directory: the file names paths of this node's configuration, and goes with it.
      this.confDir = await mkdtemp(join(tmpdir(), 'pagewatch-fonts-'));
      this.confFile = join(this.confDir, 'fonts.conf');
      await writeFile(this.confFile, fontsConf(baseFontconfigFile(this.baseEnv), [dir]));
      this.watcher = watch(dir, { recursive: true }, (_event, name) => {
        if (name === null || isFontFile(String(name))) this.changed();
        else if (isWebFontFile(String(name))) this.unusable(String(name));
      });
      this.watcher.on('error', (err) => this.opts.log.warn({ err, dir }, 'fonts.dir can no longer be watched'));
    }
    this.coverage = scriptCoverage(this.env());
    const { warning } = await this.coverage;
    if (warning) this.opts.log.warn({ fontsDir: this.opts.dir || undefined }, warning);
  }

  async stop(): Promise<void> {
    clearTimeout(this.settle);
    this.watcher?.close();
    this.watcher = undefined;
    if (this.confDir) await rm(this.confDir, { recursive: true, force: true });
  }

  /** The environment to launch Chromium with. */
  env(): NodeJS.ProcessEnv {
    return this.confFile ? { ...this.baseEnv, FONTCONFIG_FILE: this.confFile } : this.baseEnv;
  }

  /** Which scripts have no font (checked at start and after each change of fonts.dir). */
  scripts(): Promise<ScriptCoverage> {
    return (this.coverage ??= scriptCoverage(this.env()));
  }

  private unusable(name: string): void {
    if (this.warned.has(name)) return;
    this.warned.add(name);
    this.opts.log.warn(
      { dir: this.opts.dir, file: name },
      'fonts.dir: WOFF and WOFF2 files are not drawn by Chromium from a directory; convert them to .ttf or .otf',
    );
  }

  private changed(): void {
    clearTimeout(this.settle);
    this.settle = setTimeout(() => {
      this.opts.log.info({ dir: this.opts.dir }, 'fonts.dir changed: recycling the browser');
      this.coverage = scriptCoverage(this.env());
      this.opts.onChange();
    }, SETTLE_MS);
  }
}
