import { existsSync } from 'node:fs';
import { chromium } from 'playwright';

/**
 * Chromium's headless shell first: the same Blink, without the desktop browser around it, so a navigation,
 * a screenshot and a PDF cost less CPU (docs/performance.md). Debian packages it as chromium-headless-shell.
 * The binary, not /usr/bin's wrapper: that shell script does not exec it, so the browser would not lead its
 * process group (by which a crashed browser is reaped: launch.ts) and a shell would sit above it.
 */
export const SYSTEM_CHROMIUM_PATHS = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/snap/bin/chromium',
];

/**
 * Which Chromium to launch: the configured path (PAGEWATCH_CHROMIUM_PATH) wins; else Playwright's own
 * build if it was downloaded; else a system package. Undefined when there is none.
 */
export function findChromium(configured: string): string | undefined {
  if (configured) return configured;
  let managed: string | undefined;
  try {
    managed = chromium.executablePath();
  } catch {
    managed = undefined;
  }
  if (managed && existsSync(managed)) return managed;
  return SYSTEM_CHROMIUM_PATHS.find((p) => existsSync(p));
}
