#!/usr/bin/env node
// Runs after `npm install`: makes sure a Chromium is there for the service to launch.
// Order: PAGEWATCH_CHROMIUM_PATH → Playwright's own build → a system Chromium → install one
// (Debian/Ubuntu as root: the `chromium` package, fonts, qpdf and poppler-utils; elsewhere Playwright's installer).
// It never fails the install: without a browser the service still starts and /ready says why.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/snap/bin/chromium',
];
// The fonts: Liberation, metric-compatible with Arial, Times New Roman and Courier New, so documents laid out
// for those break lines where they did (fonts-liberation rather than fonts-liberation2: it is the one
// Playwright's and Debian's Chromium dependencies name, is on every Debian/Ubuntu release, and has Liberation
// Sans Narrow for Arial Narrow, which 2.x dropped); Noto for the world's scripts (core: Latin, Greek,
// Cyrillic, Arabic, Hebrew, Devanagari, Thai...; CJK: Chinese, Japanese, Korean) and colour emoji.
// Without them such text renders as boxes (each render lists those characters: diagnostics.missingGlyphs).
const FONT_PACKAGES = ['fonts-liberation', 'fonts-noto-core', 'fonts-noto-cjk', 'fonts-noto-color-emoji'];
// qpdf: the PDF tools (merge, split, encrypt, PDF/A...) run it; without it they answer 503 and /ready says so.
// poppler-utils: monitors that watch a PDF read its text (pdftotext) and picture (pdftoppm) with it; without
// it their captures fail and /ready says so.
const TOOL_PACKAGES = ['qpdf', 'poppler-utils'];
const EXTRA_PACKAGES = [...FONT_PACKAGES, ...TOOL_PACKAGES];
const APT_PACKAGES = ['chromium', ...EXTRA_PACKAGES];
const say = (msg) => console.log(`[pagewatch] ${msg}`);

async function playwrightChromium() {
  try {
    const { chromium } = await import('playwright');
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

async function findChromium() {
  const configured = process.env.PAGEWATCH_CHROMIUM_PATH;
  if (configured) return existsSync(configured) ? configured : undefined;
  return (await playwrightChromium()) ?? SYSTEM_PATHS.find((p) => existsSync(p));
}

function isDebianRoot() {
  return process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
}

function run(cmd, args) {
  say(`$ ${cmd} ${args.join(' ')}`);
  return (
    spawnSync(cmd, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0
  );
}

// `dpkg -s` succeeds for a removed package whose config files remain: ask for the real status.
function aptInstalled(pkg) {
  try {
    return (
      execFileSync('dpkg-query', ['-W', '-f=${Status}', pkg], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }) === 'install ok installed'
    );
  } catch {
    return false;
  }
}

async function main() {
  if (process.env.PAGEWATCH_SKIP_BROWSER_INSTALL === '1')
    return say('PAGEWATCH_SKIP_BROWSER_INSTALL=1: not checking for Chromium');
  const found = await findChromium();
  // On Debian the fonts matter as much as the browser: without them pages render in fallback glyphs.
  const missing = isDebianRoot()
    ? APT_PACKAGES.filter((pkg) => (pkg === 'chromium' ? !found : !aptInstalled(pkg)))
    : [];
  if (found && missing.length === 0) return say(`Chromium: ${found}`);

  if (isDebianRoot()) {
    say(`installing ${missing.join(', ')} with apt-get (Debian/Ubuntu, running as root)`);
    const install = (pkgs) => run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs]);
    if (run('apt-get', ['update', '-qq'])) {
      // A package an older release lacks (fonts-noto-core before Debian 11) must not keep the others out.
      if (!install(missing) && missing.length > 1) for (const pkg of missing) install([pkg]);
      const now = await findChromium();
      const left = EXTRA_PACKAGES.filter((pkg) => !aptInstalled(pkg));
      if (now && left.length === 0) return say(`Chromium: ${now}`);
      if (now)
        return say(
          `Chromium: ${now} (not installed: ${left.join(', ')}; /ready names the scripts without a font and ` +
            'says when the PDF tools lack qpdf or watched PDFs lack poppler-utils)',
        );
    }
  } else if (!found) {
    say("installing Chromium with Playwright's installer");
    if (run(process.execPath, ['node_modules/playwright/cli.js', 'install', 'chromium'])) {
      const now = await findChromium();
      if (now) return say(`Chromium: ${now}`);
    }
  }
  if (found) {
    say(`Chromium: ${found} (some fonts, qpdf or poppler-utils could not be installed; /ready says which are missing)`);
    return say(`  to install them: sudo apt-get install ${EXTRA_PACKAGES.join(' ')}`);
  }
  say('No Chromium found and none could be installed. Install one, then start again:');
  say(`  Debian/Ubuntu:  sudo apt-get install chromium ${EXTRA_PACKAGES.join(' ')}`);
  say('  elsewhere:      npx playwright install --with-deps chromium');
  say('  or point PAGEWATCH_CHROMIUM_PATH at an existing Chrome/Chromium executable.');
}

main().catch((err) => say(`browser check failed: ${err?.message ?? err}`));
