import { chromium, type Browser } from 'playwright';

// These stop Chromium from calling home, which on a closed network means a storm of refused
// connections. The sandbox is decided by `render.sandbox` (see sandbox.ts), not here.
const ARGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
  '--font-render-hinting=none',
  // Animated images (GIF, APNG, WebP) show their first frame and stay there: a capture must not depend on
  // which frame was up when it was taken (Blink's ImageAnimationPolicy 2 = kNoAnimation).
  '--blink-settings=imageAnimationPolicy=2',
];

/**
 * Every connection goes through the egress proxy. `<-loopback>` removes Chromium's built-in rule
 * that sends loopback addresses around the proxy; WebRTC may not send UDP the proxy cannot see.
 */
function egressArgs(proxyUrl: string): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
  ];
}

// A page that allocates without end crashes its renderer at this heap size instead of eating the host.
const HOSTILE_PAGE_ARGS = ['--js-flags=--max-old-space-size=512'];

export interface LaunchedBrowser {
  browser: Browser;
  pid: number | undefined;
  version: string;
}

export interface LaunchOptions {
  executablePath: string;
  proxyUrl: string;
  /** false adds `--no-sandbox` (Playwright's `chromiumSandbox`), the only way Chromium starts as root. */
  sandbox: boolean;
  /** Chromium's environment (fonts.dir sets FONTCONFIG_FILE in it); default this process's. */
  env?: NodeJS.ProcessEnv;
}

export async function launchChromium({
  executablePath,
  proxyUrl,
  sandbox,
  env,
}: LaunchOptions): Promise<LaunchedBrowser> {
  const browser = await chromium.launch({
    executablePath,
    ...(env && { env }),
    chromiumSandbox: sandbox,
    args: [...ARGS, ...egressArgs(proxyUrl), ...HOSTILE_PAGE_ARGS],
    // Playwright turns Chromium's popup blocker off; keep it on so a page cannot open windows at will.
    ignoreDefaultArgs: ['--disable-popup-blocking'],
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  return { browser, pid: await browserPid(browser), version: browser.version() };
}

/** Chromium's main process id, so a crashed or recycled browser's whole process group can be reaped. */
async function browserPid(browser: Browser): Promise<number | undefined> {
  try {
    const cdp = await browser.newBrowserCDPSession();
    const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
    await cdp.detach();
    return info.processInfo.find((p) => p.type === 'browser')?.id;
  } catch {
    return undefined;
  }
}

/**
 * Playwright starts Chromium in its own process group. Killing the group makes sure no renderer or
 * zygote outlives a crashed or recycled browser as an orphan.
 */
export function killProcessGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
