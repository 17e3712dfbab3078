// The README's path from nothing to an email with the change's crops, walked in a real browser against the
// running service, the dashboard alone: paste the key, make an email channel (default) and send its test,
// make a monitor and run it (the baseline), change the page and run it again. What the SMTP server
// (smtp-server on 127.0.0.1) receives is parsed with mailparser: the test email, then the change's email
// with its HTML and plain parts, the removed and added text marked, the before and after crops inline
// (decodable PNGs the HTML refers to by cid) and the link to the capture in the dashboard.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { chromium, type Browser, type Page } from 'playwright';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng } from '../helpers/png.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
let page: Page;
let smtp: SMTPServer;
const mail: ParsedMail[] = [];
let price = '$24.99';

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, done) {
      void simpleParser(stream, { keepCidLinks: true }).then((parsed) => {
        mail.push(parsed);
        done();
      }, done);
    },
  });
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  const port = (smtp.server.address() as AddressInfo).port;
  [svc, fx, browser] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      email: { smtp: { host: '127.0.0.1', port, security: 'none' }, from: 'Pagewatch <pw@example.test>' },
    }),
    startFixtureServer(),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
  fx.route('/pricing', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Pricing</title><body style="margin:0;font:20px sans-serif">` +
        `<h1>Pro plan</h1><p id="price" style="margin:40px;padding:20px;background:#eef">Price: ${price} a month</p></body>`,
    );
  });
  const context = await browser.newContext({ viewport: VIEWPORTS.laptop, bypassCSP: true }); // axe is injected
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close(), new Promise<void>((done) => (smtp ? smtp.close(done) : done()))]);
});

it('from nothing to an email with the crops of the change, in the dashboard alone', async () => {
  const { key } = svc.createKey('five minutes');

  // Step 2: paste the key.
  await page.goto(`${svc.url}/monitors`);
  await page.fill('#key-input', key);
  await page.click('#key-save');
  await page.locator('#list-section').waitFor();

  // Step 3: an email channel, the key's default; Send test reaches the inbox.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Channels' }).click();
  await page.getByRole('button', { name: 'New channel' }).click();
  await page.fill('#c-name', 'My inbox');
  await page.fill('#c-to', 'me@example.test');
  await page.check('#c-default');
  await page.getByRole('button', { name: 'Create channel' }).click();
  await page.getByRole('button', { name: 'Send test' }).click();
  await until('the test delivered', () => page.getByText('Test message to “My inbox” delivered').first().isVisible());
  expect(await violations(page)).toEqual([]);
  const test = await until('the test email', () => mail[0]);
  expect(test.to).toMatchObject({ text: 'me@example.test' });

  // Step 4: a monitor that takes the key's default channels, and its baseline.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Monitors' }).click();
  await page.getByRole('button', { name: 'New monitor' }).click();
  await page.fill('#f-name', 'Pricing');
  await page.fill('#f-url', `${fx.url}/pricing`);
  await page.fill('#f-schedule', '0 0 1 1 *');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  const runNow = page.getByRole('button', { name: 'Run now for Pricing' });
  await runNow.click();
  const monitors = async () =>
    (await (await svc.call('GET', '/api/monitors', key)).json()) as { items: { lastStatus?: string }[] };
  await until('the baseline', async () => (await monitors()).items[0]?.lastStatus === 'baseline');

  // Step 5: the page changes; the next capture emails the change.
  price = '$19.99';
  await until('Run now ready again', () => runNow.isEnabled());
  await runNow.click();
  const email = await until('the change email', () => mail[1]);

  expect(email.subject).toContain('Pricing');
  const htmlPart = String(email.html);
  expect(htmlPart).toMatch(/<del[^>]*>[^<]*24\.99/);
  expect(htmlPart).toMatch(/<ins[^>]*>[^<]*19\.99/);
  expect(email.text).toContain('19.99');
  expect(htmlPart).toMatch(/\/monitors#\/monitors\/mon_[0-9a-f]+\/captures\/cap_[0-9a-f]+/);
  const inline = email.attachments.filter((a) => a.contentType === 'image/png' && a.cid);
  expect(inline.length).toBeGreaterThanOrEqual(2); // the region before and after
  for (const image of inline) {
    expect(htmlPart).toContain(`cid:${image.cid}`);
    const png = decodePng(image.content);
    expect(png.width).toBeGreaterThan(0);
    expect(png.height).toBeGreaterThan(0);
  }
});
