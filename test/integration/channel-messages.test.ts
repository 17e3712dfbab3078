// Channel messages (src/channels/deliver.ts) from a real monitor change: a page captured twice by real
// Chromium through the API, its monitor.changed event taken from the signed webhook as a receiver gets it,
// and its images read back through the API. Each channel type's message goes to a real protocol server on
// loopback: email to an SMTP server (smtp-server), parsed with mailparser (HTML, plain text, inline crops
// decoded with pngjs and referenced by cid); chat to receivers that check each payload against the
// documented format (zod schemas below, after the services' docs cited in src/channels/*.ts); Discord's
// multipart parsed by the platform's FormData. The egress policy refuses a channel's host: nothing is sent.
import { simpleParser, type ParsedMail } from 'mailparser';
import { PNG } from 'pngjs';
import { SMTPServer } from 'smtp-server';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChannelSettings } from '../../src/domain/channels.js';
import {
  deliverToChannel,
  type AlertItem,
  type ChannelDeliveryDeps,
  type SendableChannel,
} from '../../src/channels/deliver.js';
import { channelDeliveryDeps } from '../../src/channels/delivery-deps.js';
import { configSchema } from '../../src/config.js';
import { EgressPolicy } from '../../src/egress/policy.js';
import { LocalFileStore } from '../../src/stores/files/local.js';
import { join } from 'node:path';
import { startChatReceiver, type ChatReceiver } from '../helpers/chat-receiver.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { expectJson, monitorRuns } from '../helpers/monitor-runs.js';
import { FIXTURE_EGRESS, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SETTINGS = { jobs: { pollIntervalMs: 100 }, webhooks: { retryScheduleMs: [200] } };
const SMTP_USER = 'mailer';
const SMTP_PASSWORD = 'smtp-pass-7f3a';

interface Received {
  from: string;
  to: string[];
  raw: Buffer;
}

let svc: TestService;
let fx: FixtureServer;
let hooks: WebhookReceiver;
let chat: ChatReceiver;
/** On 127.0.0.2, which FIXTURE_EGRESS does not allow. */
let refusedChat: ChatReceiver;
let smtp: SMTPServer;
let smtpPort: number;
const mail: Received[] = [];
const smtpLogins: { user: string; password: string }[] = [];
let owner: { id: string; key: string; webhookSecret: string };
let changed: AlertItem;
let failed: AlertItem;
let monitorId: string;
const price = { value: '$24.99' };

function startSmtp(): Promise<void> {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      smtpLogins.push({ user: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mail.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });
  smtp.listen(0, '127.0.0.1');
  return once(smtp.server, 'listening').then(() => {
    smtpPort = (smtp.server.address() as AddressInfo).port;
  });
}

/** The deps compose.ts would build (channelDeliveryDeps), over this service's stores and capture files. */
function deps(overrides: Partial<ChannelDeliveryDeps> = {}): ChannelDeliveryDeps {
  const config = configSchema.parse({
    egress: FIXTURE_EGRESS,
    email: {
      smtp: { host: '127.0.0.1', port: smtpPort, security: 'none', user: SMTP_USER, password: SMTP_PASSWORD },
      from: 'Pagewatch <alerts@pagewatch.test>',
    },
    webhooks: { timeoutMs: 10_000 },
  });
  return {
    ...channelDeliveryDeps({
      config,
      egress: new EgressPolicy(config.egress),
      captures: svc.backend.stores.captures,
      monitors: svc.backend.stores.monitors,
      files: new LocalFileStore(join(svc.dataDir, 'captures')),
    }),
    ...overrides,
  };
}

function channel(settings: Partial<ChannelSettings> & Pick<ChannelSettings, 'type'>): SendableChannel {
  return {
    id: 'chn_test',
    keyId: owner.id,
    settings: {
      name: 'Test',
      templates: {},
      digest: 'off',
      digestAt: '09:00',
      default: false,
      ...settings,
    },
  };
}

const decodePng = (bytes: Buffer) => PNG.sync.read(bytes);

beforeAll(async () => {
  [svc, fx, hooks, chat, refusedChat] = await Promise.all([
    startTestService(SETTINGS),
    startFixtureServer(),
    startWebhookReceiver(),
    startChatReceiver('127.0.0.1'),
    startChatReceiver('127.0.0.2'),
    startSmtp(),
  ]);
  owner = svc.createKey('channel-messages');
  fx.route('/product', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Widget</title></head>
       <body style="margin:0;background:#fff;font:24px sans-serif;color:#222">
       <h1 style="margin:16px">Blue widget</h1><p class="price" style="margin:16px">Price: ${price.value}</p>
       <p style="margin:16px">Ships in 2 days &amp; more</p></body></html>`,
    );
  });
  const created = await expectJson<{ id: string }>(
    await svc.call('POST', '/api/monitors', owner.key, {
      name: 'Widget <price> & stock',
      url: `${fx.url}/product`,
      schedule: '0 0 1 1 *',
      capture: { viewport: { width: 640, height: 360 } },
      diff: { confirm: false },
      webhookUrl: hooks.url,
      notify: ['change', 'failure'],
    }),
    201,
  );
  monitorId = created.id;
  const runs = monitorRuns(
    () => svc,
    () => owner.key,
    60_000,
  );
  await runs.capture(created); // the baseline
  price.value = '$19.99';
  await runs.capture(created); // the change
  const [hit] = await hooks.waitForHits(1, 30_000);
  const event = verifyHit(owner.webhookSecret, hit!) as {
    type: AlertItem['type'];
    timestamp: string;
    data: Record<string, unknown>;
  };
  expect(event.type).toBe('monitor.changed');
  changed = { type: event.type, timestamp: event.timestamp, data: event.data };
  failed = {
    type: 'capture.failed',
    timestamp: new Date().toISOString(),
    data: {
      monitorId,
      captureId: 'cap_00000000000000000000',
      url: `${fx.url}/product`,
      status: 'failed',
      reason: 'schedule',
      takenAt: new Date().toISOString(),
      error: { code: 'render_timeout', message: 'the page did not load in time' },
    },
  };
}, 180_000);

afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), hooks?.close(), chat?.close(), refusedChat?.close()]);
  await new Promise<void>((done) => (smtp ? smtp.close(() => done()) : done()));
});

describe('the change it starts from', () => {
  it('is a real monitor.changed with a region, a baseline and the text change', () => {
    expect(changed.data).toMatchObject({ monitorId, changed: true });
    expect(changed.data.summary).toContain('$19.99');
    expect((changed.data.regions as unknown[]).length).toBeGreaterThan(0);
    expect(changed.data.baselineId).toEqual(expect.stringMatching(/^cap_/));
  });
});

describe('email', () => {
  let parsed: ParsedMail;
  let received: Received;

  beforeAll(async () => {
    const before = mail.length;
    const result = await deliverToChannel(
      deps(),
      channel({ type: 'email', to: ['ops@example.test', 'me@example.test'] }),
      [changed],
    );
    expect(result, result.error).toMatchObject({ ok: true });
    received = await until('the email', () => mail[before]);
    parsed = await simpleParser(received.raw, { skipImageLinks: true });
  });

  it('goes to the recipients from email.from, authenticated with the SMTP settings', () => {
    expect(received.to).toEqual(['ops@example.test', 'me@example.test']);
    expect(received.from).toBe('alerts@pagewatch.test');
    expect(smtpLogins.at(-1)).toEqual({ user: SMTP_USER, password: SMTP_PASSWORD });
    expect(parsed.subject).toBe('Widget <price> & stock: Changed');
  });

  it('is multipart/alternative with a plain-text part and an HTML part', () => {
    expect(received.raw.toString('latin1')).toMatch(/content-type: multipart\/alternative/i);
    expect(parsed.text).toContain('$19.99');
    expect(parsed.text).toContain(`/monitors#/monitors/${monitorId}/captures/${String(changed.data.captureId)}`);
    expect(parsed.html).toBeTruthy();
  });

  it('marks removed text with <del> and added text with <ins>, escaping the page text', () => {
    const html = parsed.html as string;
    expect(html).toMatch(/<del[^>]*>\$24\.99<\/del>/);
    expect(html).toMatch(/<ins[^>]*>\$19\.99<\/ins>/);
    expect(html).toContain('Widget &lt;price&gt; &amp; stock: Changed');
    expect(html).toContain(
      `href="${svc.url}/monitors#/monitors/${monitorId}/captures/${String(changed.data.captureId)}"`,
    );
  });

  it('carries the before and after crops inline, as PNGs the HTML references by cid', () => {
    const inline = parsed.attachments.filter((a) => a.contentType === 'image/png');
    expect(inline.length).toBeGreaterThanOrEqual(2);
    const html = parsed.html as string;
    for (const image of inline) {
      expect(image.contentDisposition).toBe('inline');
      expect(html).toContain(`cid:${image.cid}`);
      const png = decodePng(image.content);
      expect(png.width).toBeGreaterThan(0);
      expect(png.width).toBeLessThanOrEqual(600);
    }
    expect(inline.some((i) => i.filename?.startsWith('before'))).toBe(true);
    expect(inline.some((i) => i.filename?.startsWith('after'))).toBe(true);
  });

  it('uses the subject and body templates, keeping the crops', async () => {
    const before = mail.length;
    const result = await deliverToChannel(
      deps(),
      channel({
        type: 'email',
        to: ['ops@example.test'],
        templates: {
          subject: '[{{ monitor.name | upcase }}] {{ summary }}',
          body: '{% for c in changes %}{{ c.before }} => {{ c.after }}\n{% endfor %}<b>not markup</b>',
        },
      }),
      [changed],
    );
    expect(result.ok, result.error).toBe(true);
    const message = await simpleParser((await until('the templated email', () => mail[before])).raw);
    expect(message.subject).toMatch(/^\[WIDGET <PRICE> & STOCK\] .*\$19\.99/);
    expect(message.text).toContain('Price: $24.99 => Price: $19.99');
    expect(message.html).toContain('&lt;b&gt;not markup&lt;/b&gt;');
    expect(message.attachments.filter((a) => a.contentType === 'image/png').length).toBeGreaterThanOrEqual(2);
  });

  it('sends a digest as one email listing each alert', async () => {
    const before = mail.length;
    const result = await deliverToChannel(deps(), channel({ type: 'email', to: ['ops@example.test'] }), [
      changed,
      failed,
    ]);
    expect(result.ok, result.error).toBe(true);
    const message = await simpleParser((await until('the digest', () => mail[before])).raw);
    expect(message.subject).toBe('2 alerts from Pagewatch');
    expect(message.text).toContain('Changed');
    expect(message.text).toContain('Capture failed: the page did not load in time');
    expect(mail.length).toBe(before + 1);
  });

  it('with security starttls, never sends in the clear to a server that offers no STARTTLS', async () => {
    const before = mail.length;
    const d = deps();
    const result = await deliverToChannel(
      { ...d, email: { ...d.email, smtp: { ...d.email.smtp, security: 'starttls' } } },
      channel({ type: 'email', to: ['a@example.test'] }),
      [changed],
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^SMTP: .*STARTTLS/i);
    expect(result.error).not.toContain(SMTP_PASSWORD);
    expect(mail.length).toBe(before);
  });

  it('connects to the address the egress policy checked, keeping the host name for TLS, which is verified', async () => {
    // mail.test resolves only through the policy's lookup: the connection can only reach 127.0.0.1 pinned.
    const sni: string[] = [];
    const tlsServer = new SMTPServer({
      logger: false,
      authOptional: true,
      SNICallback(servername, callback) {
        sni.push(servername);
        callback(null, undefined); // smtp-server's own self-signed certificate
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => callback(new Error('nothing should be delivered')));
      },
    });
    tlsServer.listen(0, '127.0.0.1');
    await once(tlsServer.server, 'listening');
    try {
      const lookups: string[] = [];
      const egress = new EgressPolicy({ allowPrivate: false, allowHosts: ['mail.test'], denyHosts: [] }, (host) => {
        lookups.push(host);
        return Promise.resolve(host === 'mail.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
      });
      const d = deps({ egress });
      const port = (tlsServer.server.address() as AddressInfo).port;
      const result = await deliverToChannel(
        { ...d, email: { ...d.email, smtp: { ...d.email.smtp, host: 'mail.test', port, security: 'starttls' } } },
        channel({ type: 'email', to: ['a@example.test'] }),
        [changed],
      );
      expect(lookups).toEqual(['mail.test']);
      expect(sni).toEqual(['mail.test']);
      // The self-signed certificate is refused: TLS is verified, never skipped.
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(/^SMTP: .*(self[- ]signed|certificate)/i);
    } finally {
      await new Promise<void>((done) => tlsServer.close(() => done()));
    }
  });

  it("puts each changed alert's crops in a digest under its own heading", async () => {
    const before = mail.length;
    const result = await deliverToChannel(deps(), channel({ type: 'email', to: ['ops@example.test'] }), [
      changed,
      failed,
      changed,
    ]);
    expect(result.ok, result.error).toBe(true);
    const message = await simpleParser((await until('the digest', () => mail[before])).raw, { skipImageLinks: true });
    const html = message.html as string;
    const cids = message.attachments.map((a) => a.cid);
    expect(cids.some((c) => c?.startsWith('crop-0-'))).toBe(true);
    expect(cids.some((c) => c?.startsWith('crop-2-'))).toBe(true);
    expect(cids.some((c) => c?.startsWith('crop-1-'))).toBe(false); // the failure has no regions
    for (const cid of cids) expect(html).toContain(`cid:${cid}`);
    expect(html.match(/<h2[^>]*>/g)).toHaveLength(3);
  });

  it('refuses to send without an SMTP host, saying so', async () => {
    const d = deps();
    const result = await deliverToChannel(
      { ...d, email: { ...d.email, smtp: { ...d.email.smtp, host: '' } } },
      channel({ type: 'email', to: ['a@example.test'] }),
      [changed],
    );
    expect(result).toMatchObject({ ok: false, error: 'email is not set up: the service has no email.smtp.host' });
  });

  it('does not connect to an SMTP host the egress policy refuses', async () => {
    const before = mail.length;
    const d = deps();
    const refused = await deliverToChannel(
      { ...d, email: { ...d.email, smtp: { ...d.email.smtp, host: '127.0.0.2' } } },
      channel({ type: 'email', to: ['a@example.test'] }),
      [changed],
    );
    expect(refused).toMatchObject({ ok: false, blocked: true, error: '127.0.0.2 is not a public address' });
    expect(mail.length).toBe(before);
  });
});

// The documented formats, as far as this service uses them.
const slackSchema = z
  .object({
    text: z.string().min(1),
    blocks: z
      .array(
        z.discriminatedUnion('type', [
          z
            .object({
              type: z.literal('header'),
              text: z
                .object({
                  type: z.literal('plain_text'),
                  text: z.string().min(1).max(150),
                  emoji: z.boolean().optional(),
                })
                .strict(),
            })
            .strict(),
          z
            .object({
              type: z.literal('section'),
              text: z.object({ type: z.literal('mrkdwn'), text: z.string().min(1).max(3000) }).strict(),
            })
            .strict(),
          z.object({ type: z.literal('image'), image_url: z.url(), alt_text: z.string().min(1).max(2000) }).strict(),
        ]),
      )
      .min(1)
      .max(50),
  })
  .strict();

const discordEmbed = z
  .object({
    title: z.string().max(256),
    description: z.string().max(4096),
    color: z.number().int().min(0).max(0xffffff),
    timestamp: z.iso.datetime(),
    url: z.url().optional(),
    image: z.object({ url: z.string() }).strict().optional(),
  })
  .strict();
const discordSchema = z
  .object({
    allowed_mentions: z.object({ parse: z.array(z.string()).length(0) }).strict(),
    embeds: z.array(discordEmbed).min(1).max(10),
    attachments: z
      .array(z.object({ id: z.number(), filename: z.string(), description: z.string().optional() }).strict())
      .optional(),
  })
  .strict();

const adaptiveElement = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('TextBlock'),
      text: z.string(),
      wrap: z.boolean(),
      weight: z.string().optional(),
      size: z.string().optional(),
      spacing: z.string().optional(),
    })
    .strict(),
  z.object({ type: z.literal('Image'), url: z.url(), altText: z.string() }).strict(),
]);
const teamsSchema = z
  .object({
    type: z.literal('message'),
    attachments: z
      .array(
        z
          .object({
            contentType: z.literal('application/vnd.microsoft.card.adaptive'),
            contentUrl: z.null(),
            content: z
              .object({
                $schema: z.literal('http://adaptivecards.io/schemas/adaptive-card.json'),
                type: z.literal('AdaptiveCard'),
                version: z.string().regex(/^1\.\d$/),
                body: z.array(adaptiveElement).min(1),
                actions: z
                  .array(z.object({ type: z.literal('Action.OpenUrl'), title: z.string(), url: z.url() }).strict())
                  .optional(),
              })
              .strict(),
          })
          .strict(),
      )
      .length(1),
  })
  .strict();

describe('chat channels', () => {
  it('Slack: text and Block Kit blocks, text only', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(deps(), channel({ type: 'slack', url: `${chat.url}/services/T/B/x` }), [
      changed,
    ]);
    expect(result.ok, result.error).toBe(true);
    const hit = chat.hits[0]!;
    expect([hit.method, hit.path, hit.headers['content-type']]).toEqual([
      'POST',
      '/services/T/B/x',
      'application/json',
    ]);
    const payload = slackSchema.parse(JSON.parse(hit.body.toString('utf8')));
    expect(payload.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Widget <price> & stock: Changed', emoji: false },
    });
    const sections = JSON.stringify(payload.blocks.filter((b) => b.type === 'section'));
    expect(sections).toContain('~$24.99~');
    expect(sections).toContain('*$19.99*');
    expect(payload.blocks.some((b) => b.type === 'image')).toBe(false);
  });

  it('Slack: links at publicUrl; an image block only with an image URL Slack can fetch', async () => {
    chat.hits.length = 0;
    const textOnly = await deliverToChannel(
      deps({ publicUrl: 'https://watch.example' }),
      channel({ type: 'slack', url: `${chat.url}/s` }),
      [changed],
    );
    expect(textOnly.ok, textOnly.error).toBe(true);
    const first = slackSchema.parse(JSON.parse(chat.hits[0]!.body.toString('utf8')));
    expect(JSON.stringify(first)).toContain(`<https://watch.example/monitors#/monitors/${monitorId}/captures/`);
    // The capture's imageUrl needs the key: never sent as an image Slack would fail to download.
    expect(first.blocks.some((b) => b.type === 'image')).toBe(false);

    const publicImage = `https://watch.example/public/${String(changed.data.captureId)}.png`;
    const withImage = await deliverToChannel(
      deps({
        publicImageUrl: (keyId, captureId) =>
          keyId === owner.id ? `https://watch.example/public/${captureId}.png` : undefined,
      }),
      channel({ type: 'slack', url: `${chat.url}/s` }),
      [changed],
    );
    expect(withImage.ok, withImage.error).toBe(true);
    const second = slackSchema.parse(JSON.parse(chat.hits[1]!.body.toString('utf8')));
    expect(second.blocks.at(-1)).toEqual({
      type: 'image',
      image_url: publicImage,
      alt_text: 'The capture of Widget <price> & stock: Changed',
    });
  });

  it('Teams: an Image element only with an image URL Teams can fetch', async () => {
    chat.hits.length = 0;
    const image = 'https://watch.example/public/x.png';
    const result = await deliverToChannel(
      deps({ publicImageUrl: () => image }),
      channel({ type: 'teams', url: `${chat.url}/t` }),
      [changed],
    );
    expect(result.ok, result.error).toBe(true);
    const card = teamsSchema.parse(JSON.parse(chat.hits[0]!.body.toString('utf8'))).attachments[0]!.content;
    expect(card.body.at(-1)).toEqual({
      type: 'Image',
      url: image,
      altText: 'The capture of Widget <price> & stock: Changed',
    });
  });

  it('Slack: a refusal is a failed attempt quoting what Slack said', async () => {
    chat.answer = (res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_blocks');
    try {
      const result = await deliverToChannel(deps(), channel({ type: 'slack', url: `${chat.url}/s` }), [changed]);
      expect(result).toMatchObject({ ok: false, status: 400, error: 'HTTP 400: invalid_blocks' });
    } finally {
      chat.answer = (res) => res.writeHead(200).end('ok');
    }
  });

  it('Discord: multipart with payload_json and the crop as files[0], shown by attachment://crop.png', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(deps(), channel({ type: 'discord', url: `${chat.url}/api/webhooks/1/tok` }), [
      changed,
    ]);
    expect(result.ok, result.error).toBe(true);
    const hit = chat.hits[0]!;
    expect(hit.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(new Uint8Array(hit.body), {
      headers: { 'content-type': hit.headers['content-type']! },
    }).formData();
    const payload = discordSchema.parse(JSON.parse(form.get('payload_json') as string));
    expect(payload.embeds[0]!.image).toEqual({ url: 'attachment://crop.png' });
    expect(payload.attachments).toEqual([{ id: 0, filename: 'crop.png', description: 'The changed region' }]);
    expect(payload.embeds[0]!.description).toContain('~~$24.99~~');
    expect(payload.embeds[0]!.url).toContain(`/monitors#/monitors/${monitorId}/captures/`);
    const file = form.get('files[0]') as File;
    expect([file.name, file.type]).toEqual(['crop.png', 'image/png']);
    expect(decodePng(Buffer.from(await file.arrayBuffer())).width).toBeLessThanOrEqual(600);
  });

  it('Discord: JSON alone when there is no crop (a failure)', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(deps(), channel({ type: 'discord', url: `${chat.url}/d` }), [failed]);
    expect(result.ok, result.error).toBe(true);
    expect(chat.hits[0]!.headers['content-type']).toBe('application/json');
    const payload = discordSchema.parse(JSON.parse(chat.hits[0]!.body.toString('utf8')));
    expect(payload.embeds[0]!.title).toBe('Widget <price> & stock: Capture failed: the page did not load in time');
  });

  it('Teams: one Adaptive Card in the incoming-webhook envelope, with a button to the capture', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(deps(), channel({ type: 'teams', url: `${chat.url}/workflows/x` }), [
      changed,
    ]);
    expect(result.ok, result.error).toBe(true);
    const payload = teamsSchema.parse(JSON.parse(chat.hits[0]!.body.toString('utf8')));
    const card = payload.attachments[0]!.content;
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', weight: 'Bolder' });
    expect(JSON.stringify(card.body)).toContain('**$19.99**');
    expect(card.actions?.[0]?.url).toContain(`/monitors#/monitors/${monitorId}/captures/`);
  });

  it('ntfy: the crop PUT as an attachment, title, message, tags, priority and click as parameters, the token as Bearer', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(
      deps(),
      channel({ type: 'ntfy', url: `${chat.url}/alerts`, token: 'tk_secret' }),
      [changed],
    );
    expect(result.ok, result.error).toBe(true);
    const hit = chat.hits[0]!;
    const url = new URL(hit.path, chat.url);
    expect([hit.method, url.pathname, hit.headers['content-type'], hit.headers.authorization]).toEqual([
      'PUT',
      '/alerts',
      'image/png',
      'Bearer tk_secret',
    ]);
    expect(url.searchParams.get('title')).toBe('Widget <price> & stock: Changed');
    expect(url.searchParams.get('message')).toContain('$19.99');
    expect(url.searchParams.get('filename')).toBe('crop.png');
    expect(url.searchParams.get('priority')).toBe('4');
    expect(url.searchParams.get('tags')).toBe('mag');
    expect(url.searchParams.get('click')).toContain(`/monitors#/monitors/${monitorId}/captures/`);
    expect(decodePng(hit.body).width).toBeGreaterThan(0);
  });

  it('ntfy: the message as the body when there is no crop', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(deps(), channel({ type: 'ntfy', url: `${chat.url}/alerts` }), [failed]);
    expect(result.ok, result.error).toBe(true);
    const hit = chat.hits[0]!;
    expect([hit.method, hit.headers['content-type'], hit.headers.authorization]).toEqual([
      'POST',
      'text/plain; charset=utf-8',
      undefined,
    ]);
    expect(hit.body.toString('utf8')).toContain('the page did not load in time');
    expect(new URL(hit.path, chat.url).searchParams.get('tags')).toBe('warning');
  });

  it('a digest is one chat message listing each alert', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(deps(), channel({ type: 'slack', url: `${chat.url}/s` }), [
      changed,
      failed,
      changed,
    ]);
    expect(result.ok, result.error).toBe(true);
    expect(chat.hits).toHaveLength(1);
    const payload = slackSchema.parse(JSON.parse(chat.hits[0]!.body.toString('utf8')));
    expect(payload.text).toBe('3 alerts from Pagewatch');
    const text = JSON.stringify(payload.blocks);
    expect(text.match(/Widget &lt;price&gt; &amp; stock: Changed/g)).toHaveLength(2);
    expect(text).toContain('Capture failed: the page did not load in time');
  });
});

describe('channel.test', () => {
  it("tells the test's message, with no monitor and no crop", async () => {
    const before = mail.length;
    const test: AlertItem = {
      type: 'channel.test' as AlertItem['type'],
      timestamp: new Date().toISOString(),
      data: { channelId: 'chn_test', name: 'Ops mail', test: true, message: 'A test message, sent on request.' },
    };
    const result = await deliverToChannel(deps(), channel({ type: 'email', to: ['ops@example.test'] }), [test]);
    expect(result.ok, result.error).toBe(true);
    const message = await simpleParser((await until('the test email', () => mail[before])).raw);
    expect(message.subject).toBe('Pagewatch: Test message');
    expect(message.text).toContain('A test message, sent on request.');
    expect(message.attachments).toEqual([]);
  });
});

describe('key isolation', () => {
  it("another key's channel gets neither the monitor's name nor its images", async () => {
    chat.hits.length = 0;
    const other = { ...channel({ type: 'discord', url: `${chat.url}/d` }), keyId: 'key_someone_else' };
    const result = await deliverToChannel(deps(), other, [changed]);
    expect(result.ok, result.error).toBe(true);
    expect(chat.hits[0]!.headers['content-type']).toBe('application/json'); // no crop: no image was read
    const payload = discordSchema.parse(JSON.parse(chat.hits[0]!.body.toString('utf8')));
    expect(payload.embeds[0]!.title).toBe(`${String(changed.data.url)}: Changed`);
  });
});

describe('JSON webhook channels', () => {
  it('POST {event, alerts} by default, with the custom headers', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(
      deps(),
      channel({ type: 'webhook', url: `${chat.url}/in`, headers: { 'X-Token': 'abc', 'Content-Length': '1' } }),
      [changed],
    );
    expect(result.ok, result.error).toBe(true);
    const hit = chat.hits[0]!;
    expect([hit.headers['x-token'], hit.headers['content-type']]).toEqual(['abc', 'application/json']);
    const body = JSON.parse(hit.body.toString('utf8')) as {
      event: string;
      alerts: { summary: string; monitor: { id: string } }[];
    };
    expect(body.event).toBe('monitor.changed');
    expect(body.alerts).toHaveLength(1);
    expect(body.alerts[0]).toMatchObject({ summary: changed.data.summary, monitor: { id: monitorId } });
  });

  it("sends the body template's output when it is JSON", async () => {
    chat.hits.length = 0;
    const template = '{"text": {{ summary | json }}, "count": {{ count }}, "monitor": {{ monitor.name | json }}}';
    const result = await deliverToChannel(
      deps(),
      channel({ type: 'webhook', url: `${chat.url}/in`, templates: { body: template } }),
      [changed],
    );
    expect(result.ok, result.error).toBe(true);
    expect(JSON.parse(chat.hits[0]!.body.toString('utf8'))).toEqual({
      text: changed.data.summary,
      count: 1,
      monitor: 'Widget <price> & stock',
    });
  });

  it('fails the attempt, sending nothing, when the output is not JSON', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(
      deps(),
      channel({ type: 'webhook', url: `${chat.url}/in`, templates: { body: '{"text": "{{ summary }}' } }),
      [changed],
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^body template: its output is not valid JSON \(/);
    expect(chat.hits).toHaveLength(0);
  });
});

describe('egress', () => {
  it.each(['slack', 'discord', 'teams', 'ntfy', 'webhook'] as const)(
    '%s: a URL the policy refuses is not sent',
    async (type) => {
      refusedChat.hits.length = 0;
      const result = await deliverToChannel(deps(), channel({ type, url: `${refusedChat.url}/hook` }), [changed]);
      expect(result).toMatchObject({ ok: false, blocked: true, error: '127.0.0.2 is not a public address' });
      expect(refusedChat.hits).toHaveLength(0);
    },
  );
});

describe('failures while making the message', () => {
  it('a store that fails is a failed attempt with its reason, not a thrown error', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(
      deps({ monitor: () => Promise.reject(new Error('the database is away')) }),
      channel({ type: 'slack', url: `${chat.url}/s` }),
      [changed],
    );
    expect(result).toMatchObject({ ok: false, error: 'the message could not be made: the database is away' });
    expect(chat.hits).toHaveLength(0);
  });
});

describe('templates that fail', () => {
  it('a template over its limits fails the attempt with the reason, and nothing is sent', async () => {
    chat.hits.length = 0;
    const result = await deliverToChannel(
      deps(),
      channel({
        type: 'slack',
        url: `${chat.url}/s`,
        templates: { body: '{% for i in (1..100000000) %}x{% endfor %}' },
      }),
      [changed],
    );
    expect(result).toMatchObject({ ok: false, error: 'body template: line 1: memory alloc limit exceeded' });
    expect(chat.hits).toHaveLength(0);
  });
});
