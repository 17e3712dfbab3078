// Email channels: one multipart/alternative message (HTML and plain text) over the service's SMTP server,
// sent with nodemailer. The HTML shows the verdict, the summary, the text changes (removed in <del>, added
// in <ins>), the before/after crops inline (cid: attachments) and the dashboard link. The SMTP host obeys
// the egress policy: it is resolved and checked once, the connection goes to that address, and TLS still
// verifies the configured host name (servername). The password is never logged: nodemailer's logger is off.
import nodemailer from 'nodemailer';
import type { SendResult } from '../webhooks/send.js';
import type { ChannelDeliveryDeps, PreparedMessage, AlertCrops } from './deliver.js';
import { alertLines, defaultText, PLAIN, type Markup } from './message-text.js';
import type { AlertVariables } from './variables.js';

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const HTML: Markup = {
  text: escapeHtml,
  removed: (s) => `<del style="background:#fde2e1;color:#8a1c1c">${escapeHtml(s)}</del>`,
  added: (s) => `<ins style="background:#dcf5e3;color:#0f5a2a;text-decoration:none">${escapeHtml(s)}</ins>`,
  link: (label, url) => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`,
  bold: (s) => `<strong>${s}</strong>`,
};

interface InlineImage {
  cid: string;
  filename: string;
  content: Buffer;
}

/** The crops of one alert as inline images and their HTML (a before/after pair per region). */
function cropsHtml(crops: AlertCrops | undefined, images: InlineImage[]): string {
  if (!crops) return '';
  const rows = crops.crops.map((crop) => {
    const cell = (side: 'before' | 'after', bytes: Buffer | undefined) => {
      if (!bytes) return `<td style="padding:4px;color:#666">(no ${side} image)</td>`;
      const cid = `crop-${crops.alert}-${crop.region}-${side}@pagewatch`;
      images.push({ cid, filename: `${side}-${crops.alert + 1}-${crop.region + 1}.png`, content: bytes });
      return (
        `<td style="padding:4px;vertical-align:top"><div style="font-size:12px;color:#555">${side === 'before' ? 'Before' : 'After'}</div>` +
        `<img src="cid:${cid}" alt="${side === 'before' ? 'Before' : 'After'}: region ${crop.region + 1}" style="max-width:100%;border:1px solid #ccc"></td>`
      );
    };
    return `<tr>${cell('before', crop.before)}${cell('after', crop.after)}</tr>`;
  });
  return `<table role="presentation" style="border-collapse:collapse;margin:8px 0">${rows.join('')}</table>`;
}

function alertHtml(alert: AlertVariables, heading: boolean, crops: AlertCrops | undefined, images: InlineImage[]) {
  const [first, ...rest] = alertLines(alert, HTML, heading);
  const lines = heading ? [`<h2 style="font-size:16px;margin:16px 0 4px">${first}</h2>`, ...rest] : [first!, ...rest];
  return `${lines.map((l) => (l.startsWith('<h2') ? l : `<p style="margin:4px 0">${l}</p>`)).join('\n')}\n${cropsHtml(crops, images)}`;
}

/** The message's HTML: the built-in one, or the body template's text (escaped) with the crops and links. */
function html(message: PreparedMessage, crops: AlertCrops[], images: InlineImage[]): string {
  const { vars } = message;
  const heading = `<h1 style="font-size:18px;margin:0 0 8px">${escapeHtml(message.title)}</h1>`;
  let main: string;
  if (message.body !== undefined) {
    const links = vars.alerts
      .map((a) => a.links.capture)
      .filter((l): l is string => !!l)
      .map((l) => `<p style="margin:4px 0">${HTML.link('See the capture', l)}</p>`);
    main =
      `<div style="white-space:pre-wrap">${escapeHtml(message.body)}</div>\n` +
      crops.map((c) => cropsHtml(c, images)).join('\n') +
      links.join('\n');
  } else {
    main = vars.alerts
      .map((a, i) =>
        alertHtml(
          a,
          vars.digest,
          crops.find((c) => c.alert === i),
          images,
        ),
      )
      .join('\n<hr style="border:none;border-top:1px solid #ddd">\n');
  }
  return (
    `<!doctype html><html><body style="font-family:Helvetica,Arial,sans-serif;font-size:14px;color:#222">` +
    `${heading}\n${main}\n<p style="font-size:12px;color:#777;margin-top:16px">Sent by Pagewatch.</p></body></html>`
  );
}

export async function sendEmail(deps: ChannelDeliveryDeps, message: PreparedMessage): Promise<SendResult> {
  const started = performance.now();
  const result = (r: { ok: boolean; error?: string; blocked?: boolean }): SendResult => ({
    gone: false,
    blocked: false,
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  const smtp = deps.email.smtp;
  if (!smtp.host) return result({ ok: false, error: 'email is not set up: the service has no email.smtp.host' });
  const to = message.channel.settings.to ?? [];
  if (to.length === 0) return result({ ok: false, error: 'the channel has no recipients' });

  const verdict = await deps.egress.check(smtp.host);
  if (!verdict.allowed) return result({ ok: false, blocked: !verdict.unresolvable, error: verdict.reason });

  const crops = await message.crops();
  const images: InlineImage[] = [];
  const htmlBody = html(message, crops, images);
  const text =
    (message.body ?? defaultText(message.vars, PLAIN)) +
    (message.body !== undefined
      ? message.vars.alerts
          .map((a) => a.links.capture)
          .filter(Boolean)
          .map((l) => `\n\nSee the capture: ${l}`)
          .join('')
      : '');

  const transport = nodemailer.createTransport({
    host: verdict.address, // pinned: the address the egress policy checked
    port: smtp.port,
    secure: smtp.security === 'tls',
    requireTLS: smtp.security === 'starttls',
    ignoreTLS: smtp.security === 'none',
    tls: { servername: smtp.host },
    name: 'pagewatch',
    ...(smtp.user && { auth: { user: smtp.user, pass: smtp.password } }),
    connectionTimeout: deps.timeoutMs,
    greetingTimeout: deps.timeoutMs,
    socketTimeout: deps.timeoutMs,
    logger: false,
    debug: false,
  });
  try {
    await transport.sendMail({
      from: deps.email.from,
      to,
      subject: message.title,
      text,
      html: htmlBody,
      attachments: images.map((i) => ({
        cid: i.cid,
        filename: i.filename,
        content: i.content,
        contentType: 'image/png',
        contentDisposition: 'inline' as const,
      })),
    });
    return result({ ok: true });
  } catch (err) {
    const e = err as { message?: string; responseCode?: number };
    // nodemailer's messages name the server's answer, never the credentials.
    return result({ ok: false, error: `SMTP: ${e.message ?? String(err)}` });
  } finally {
    transport.close();
  }
}
