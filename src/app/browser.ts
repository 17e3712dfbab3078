// The browser and the egress proxy it browses through, as every role has them (synchronous renders on
// api nodes, jobs and captures on worker nodes). Only `serve` makes them: no other command needs a browser.
import type { Config } from '../config.js';
import { EgressPolicy } from '../egress/policy.js';
import { EgressProxy } from '../egress/proxy.js';
import { heldByBrowsers } from '../egress/socket-owner.js';
import type { Logger } from '../log.js';
import { BrowserManager } from '../render/browser/browser-manager.js';
import { findChromium } from '../render/browser/chromium-path.js';
import { decideSandbox } from '../render/browser/sandbox.js';
import { FontSetup } from '../render/fonts/font-setup.js';

export function composeBrowser(config: Readonly<Config>, log: Logger) {
  const egress = new EgressPolicy(config.egress);
  const sandbox = decideSandbox(config.render.sandbox, process.geteuid?.());
  if (sandbox.warning) log.warn({ sandbox: false }, sandbox.warning);
  // Started before the browser (it writes the fontconfig file of fonts.dir that Chromium launches with).
  const fonts = new FontSetup({ dir: config.fonts.dir, log, onChange: () => browsers.recycle() });
  const browsers: BrowserManager = new BrowserManager({
    executablePath: findChromium(config.chromiumPath),
    proxyUrl: (): string => proxy.url, // read at launch, once the proxy below listens
    sandbox: sandbox.enabled,
    warmPages: config.render.warmPages,
    restartAfter: config.render.restartAfter,
    pageMaxUses: config.render.pageMaxUses,
    log,
    env: () => fonts.env(),
  });
  // Only our own Chromium may use the proxy: a connection from any other local process gets 407.
  const proxy = new EgressProxy(egress, { isOwnBrowser: (socket) => heldByBrowsers(socket, browsers.browserPids()) });
  proxy.on('blocked', ({ target, reason }) => log.debug({ target, reason }, 'egress blocked'));
  proxy.on('refusedClient', ({ port }) =>
    log.warn({ clientPort: port }, 'egress proxy refused a local process that is not our browser'),
  );
  return { egress, sandbox, browsers, proxy, fonts };
}
