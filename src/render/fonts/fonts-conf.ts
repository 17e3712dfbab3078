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
    '</fontconfig>',
    '',
  ].join('\n');
}

/** Files fontconfig reads as fonts (FreeType's formats); a change to any other file recycles nothing. */
export function isFontFile(name: string): boolean {
  return /\.(ttf|otf|ttc|otc|woff2?|pfb|pfa|pcf(\.gz)?)$/i.test(name);
}
