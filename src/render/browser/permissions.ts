// Permission state a page cannot change. Chromium remembers, per browser context, what became of a
// page's permission requests: in headless mode an unanswered geolocation or clipboard request leaves
// the origin "denied" (an embargo), and Browser.resetPermissions does not undo that. So a warm page's
// context gets an override for every permission, for every origin, saying "prompt" (what a fresh
// context reports): with an override in place Chromium answers queries and requests from it and records
// nothing, so no render can leave a permission state behind. The service grants no permission to any
// render.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright';

/**
 * Every permission Chromium takes an override for (CDP PermissionDescriptor names), in the forms it
 * accepts. One it does not know (an older or newer Chromium) is skipped; the isolation tests read the
 * ones a page can ask for.
 */
const PERMISSIONS: readonly Record<string, unknown>[] = [
  ...[
    'geolocation',
    'notifications',
    'clipboard-read',
    'clipboard-write',
    'camera',
    'microphone',
    'midi',
    'persistent-storage',
    'background-sync',
    'background-fetch',
    'periodic-background-sync',
    'screen-wake-lock',
    'system-wake-lock',
    'storage-access',
    'top-level-storage-access',
    'window-management',
    'local-fonts',
    'idle-detection',
    'accelerometer',
    'gyroscope',
    'magnetometer',
    'ambient-light-sensor',
    'payment-handler',
    'nfc',
    'display-capture',
    'pointer-lock',
    'keyboard-lock',
    'captured-surface-control',
    'speaker-selection',
    'web-app-installation',
    'local-network-access',
  ].map((name) => ({ name })),
  { name: 'midi', sysex: true },
  { name: 'push', userVisibleOnly: true },
  { name: 'fullscreen', allowWithoutGesture: true },
];

/**
 * One browser-level session per browser, kept open for its life: Chromium drops the overrides a session
 * set when that session detaches.
 */
const browserSessions = new WeakMap<Browser, Promise<CDPSession>>();

function browserSession(browser: Browser): Promise<CDPSession> {
  let session = browserSessions.get(browser);
  if (!session) {
    session = browser.newBrowserCDPSession();
    browserSessions.set(browser, session);
    session.catch(() => browserSessions.delete(browser));
  }
  return session;
}

/** Overrides every permission of the page's context to "prompt", for all origins. */
export async function holdPermissions(browser: Browser, context: BrowserContext, page: Page): Promise<void> {
  const session = await browserSession(browser);
  const pageSession = await context.newCDPSession(page);
  try {
    const { targetInfo } = await pageSession.send('Target.getTargetInfo');
    const browserContextId = targetInfo.browserContextId;
    await Promise.all(
      PERMISSIONS.map((permission) =>
        session
          .send('Browser.setPermission', {
            permission: permission as { name: string },
            setting: 'prompt',
            browserContextId,
          })
          .catch(() => undefined),
      ),
    );
  } finally {
    await pageSession.detach().catch(() => undefined);
  }
}
