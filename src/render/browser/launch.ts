import { chromium, type Browser } from 'playwright';

/**
 * Chromium reads only the last `--disable-features`, and Playwright passes its own: ours repeats Playwright's
 * list (Playwright 1.64's; test/integration/chromium-launch.test.ts fails when a Playwright upgrade changes it).
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * RenderDocument gives every new document a new frame in the renderer (widget, compositor, frame host), and
 * every render ends with an unload to a new document: off, an HTML render costs 15–35 % less CPU and a URL's
 * 5–15 % (docs/performance.md). Every navigation still makes a new Document and global object; only the frame
 * that hosts them is reused.
 */
const DISABLED_FEATURES = ['RenderDocument'];

export const CHROMIUM_FEATURES_ARG = `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...DISABLED_FEATURES].join(',')}`;

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
  CHROMIUM_FEATURES_ARG,
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
  // With RenderDocument off, document.fonts.ready also waits for the document's load, and Playwright's
  // screenshot first awaits it: a page still loading (an image that never arrives) would be captured only at
  // the render's timeout. The render has waited for its fonts already (ready-page.ts, bounded), so Playwright's
  // wait is turned off; Playwright reads this at each screenshot (chromium-launch.test.ts proves the capture).
  process.env.PW_TEST_SCREENSHOT_NO_FONTS_READY = '1';
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
