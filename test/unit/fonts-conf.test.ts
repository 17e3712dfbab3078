// The fontconfig file of fonts.dir and the files that recycle the browser (src/render/fonts/fonts-conf.ts),
// and the wording of /ready's font warning (script-coverage.ts). That Chromium draws with the directory's
// fonts is proven in test/integration/fonts-dir.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseFontconfigFile, fontsConf, isFontFile, isWebFontFile } from '../../src/render/fonts/fonts-conf.js';
import { coverageWarning, SCRIPT_PROBES } from '../../src/render/fonts/script-coverage.js';

describe('fontsConf', () => {
  it('includes the base configuration, adds the directories and leaves web font files out', () => {
    const xml = fontsConf('/etc/fonts/fonts.conf', ['/srv/fonts']);
    expect(xml).toContain('<include ignore_missing="yes">/etc/fonts/fonts.conf</include>');
    expect(xml).toContain('<dir>/srv/fonts</dir>');
    expect(xml).toContain('<rejectfont><glob>*.woff</glob><glob>*.woff2</glob></rejectfont>');
  });

  it('escapes paths for XML', () => {
    expect(fontsConf('/a&b/<c>.conf', ['/"d"'])).toContain('/a&amp;b/&lt;c&gt;.conf');
    expect(fontsConf('/x', ['/"d"'])).toContain('<dir>/&quot;d&quot;</dir>');
  });

  it('is a file fontconfig reads: fc-list lists the fonts of the added directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-fc-unit-'));
    try {
      const conf = join(dir, 'fonts.conf');
      writeFileSync(conf, fontsConf(join(dir, 'absent.conf'), ['/usr/share/fonts/truetype/dejavu']));
      const out = execFileSync('fc-list', [':', 'family'], {
        env: { ...process.env, FONTCONFIG_FILE: conf },
        encoding: 'utf8',
      });
      expect(out).toContain('DejaVu Sans');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('baseFontconfigFile', () => {
  it('is FONTCONFIG_FILE when set, else the system file', () => {
    expect(baseFontconfigFile({ FONTCONFIG_FILE: '/tmp/x.conf' })).toBe('/tmp/x.conf');
    expect(baseFontconfigFile({})).toBe('/etc/fonts/fonts.conf');
    expect(baseFontconfigFile({ FONTCONFIG_FILE: '' })).toBe('/etc/fonts/fonts.conf');
  });
});

describe('font files', () => {
  it('recycles for TrueType and OpenType files, in any case, not for web fonts or other files', () => {
    for (const name of ['a.ttf', 'b.OTF', 'c.ttc', 'sub/d.otc', 'e.pfb']) expect(isFontFile(name)).toBe(true);
    for (const name of ['a.woff', 'b.woff2', 'README.txt', 'fonts.conf', 'x.ttf.part'])
      expect(isFontFile(name)).toBe(false);
    expect(isWebFontFile('b.WOFF2')).toBe(true);
    expect(isWebFontFile('b.ttf')).toBe(false);
  });
});

describe('coverageWarning', () => {
  it('none when every script has a font; else names them and says what to install', () => {
    expect(coverageWarning({ missing: [] })).toBeUndefined();
    expect(coverageWarning({ missing: ['Hangul (Korean)'] })).toBe(
      'no font for Hangul (Korean): such text renders as empty boxes. Install fonts-noto-core, fonts-noto-cjk ' +
        'and fonts-noto-color-emoji (Debian/Ubuntu), or put fonts in fonts.dir',
    );
    expect(coverageWarning({ missing: [], unknown: 'the fonts could not be checked: x' })).toBe(
      'the fonts could not be checked: x',
    );
  });

  it('probes the six scripts /ready names', () => {
    expect(SCRIPT_PROBES.map((p) => p.script)).toEqual(['Han', 'Kana', 'Hangul', 'Devanagari', 'Arabic', 'Emoji']);
  });
});
