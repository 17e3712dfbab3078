import { existsSync } from 'node:fs';
import { chromium } from 'playwright';

export const SYSTEM_CHROMIUM_PATHS = [
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
