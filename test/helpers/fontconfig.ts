// Fontconfig files for tests that hide fonts from Chromium: the service under test launches Chromium
// with the FONTCONFIG_FILE it inherited (src/render/fonts/font-setup.ts), so a test that sets it before
// starting the service decides which fonts exist for it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from './service.js';

/** Only DejaVu: no CJK, Devanagari or colour emoji font (DejaVu Sans does have Arabic). */
export const DEJAVU_DIR = '/usr/share/fonts/truetype/dejavu';

/** A fontconfig file with only `dirs`, its cache in a directory of its own; returns its path. */
export function fontconfigWith(dirs: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-fc-'));
  const file = join(dir, 'fonts.conf');
  writeFileSync(
    file,
    '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n' +
      dirs.map((d) => `  <dir>${d}</dir>\n`).join('') +
      `  <cachedir>${join(dir, 'cache')}</cachedir>\n</fontconfig>\n`,
  );
  return file;
}

/**
 * A service whose Chromium (and font check) read `fontconfigFile` instead of the system's configuration.
 * Start no other service at the same time: it would read the same environment.
 */
export async function startServiceWithFonts(
  fontconfigFile: string,
  overrides: Record<string, unknown> = {},
): Promise<TestService> {
  const before = process.env.FONTCONFIG_FILE;
  process.env.FONTCONFIG_FILE = fontconfigFile;
  try {
    return await startTestService(overrides); // the service keeps the environment it started with
  } finally {
    if (before === undefined) delete process.env.FONTCONFIG_FILE;
    else process.env.FONTCONFIG_FILE = before;
  }
}
