// The fontconfig file Chromium is started with when `fonts.dir` is set: the configuration it would
// otherwise read, plus that directory. Chromium reads fontconfig once, at launch (a file added later is not
// seen, whatever <rescan> says: tried with Chromium 13x), which is why a change in the directory recycles it.

/** The fontconfig file a process started with `env` reads: FONTCONFIG_FILE if set, else the system's. */
export function baseFontconfigFile(env: NodeJS.ProcessEnv): string {
  return env.FONTCONFIG_FILE || '/etc/fonts/fonts.conf';
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A fontconfig file that includes `base` (every font and rule of it) and adds the fonts under `dirs`. */
export function fontsConf(base: string, dirs: readonly string[]): string {
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    '<!-- Written by pagewatch for its Chromium (fonts.dir); rewritten at each start. -->',
    '<fontconfig>',
    `  <include ignore_missing="yes">${xml(base)}</include>`,
    ...dirs.map((dir) => `  <dir>${xml(dir)}</dir>`),
    // fontconfig lists WOFF and WOFF2 files (FreeType reads them), but Chromium does not draw with them:
    // left out, so that the check of /ready does not count a font no render can use.
    '  <selectfont><rejectfont><glob>*.woff</glob><glob>*.woff2</glob></rejectfont></selectfont>',
    '</fontconfig>',
    '',
  ].join('\n');
}

/** Files Chromium draws with from fonts.dir; a change to any other file recycles nothing. */
export function isFontFile(name: string): boolean {
  return /\.(ttf|otf|ttc|otc|pfb|pfa)$/i.test(name);
}

/** Web font files, which Chromium takes from a page's @font-face but not from fontconfig. */
export function isWebFontFile(name: string): boolean {
  return /\.woff2?$/i.test(name);
}
