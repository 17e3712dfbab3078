// A channel as kept and as shown. Its write-only parts — the url (an incoming-webhook URL is its own
// credential), the ntfy token and the webhook's header values — are sealed together at rest (bound to the
// channel's id), shown masked ("<origin>/••••", "••••"), and a masked value sent back keeps what is stored.
import type { ChannelSettings } from '../domain/channels.js';
import { invalidRequest, type ErrorDetail } from '../errors.js';
import { MASK } from '../monitors/capture-secrets.js';
import { SecretBoxError, type SecretBox } from '../secrets/secret-box.js';
import type { ChannelRecord, StoredChannelSettings } from '../stores/channels.js';
import type { SendableChannel } from './deliver.js';

/** The sealed parts, in the clear. */
interface ChannelSecrets {
  url?: string;
  token?: string;
  headers?: Record<string, string>;
}

/** How a url is shown: its origin and a mask, so the path (often the credential) is never shown. */
export const maskedUrl = (origin: string) => `${origin}/${MASK}`;

/**
 * The channel's settings as stored, its secrets sealed. A masked value keeps the stored one it stands for
 * (the url when sent back as shown, the token, a header's value by name, case-insensitively); a mask with
 * nothing stored behind it is a 400.
 */
export function sealChannel(
  id: string,
  submitted: ChannelSettings,
  stored: ChannelRecord | undefined,
  box: SecretBox,
): { settings: StoredChannelSettings; secrets: string | null } {
  const before = stored ? openSecrets(stored, box) : {};
  const problems: ErrorDetail[] = [];
  const keep = (path: string, value: string, kept: string | undefined): string => {
    if (kept !== undefined) return kept;
    problems.push({
      path,
      message: `"${value}" stands for a value already stored, and none is stored here: send the real value`,
    });
    return value;
  };
  const secrets: ChannelSecrets = {};
  if (submitted.url !== undefined) {
    const shown = before.url === undefined ? undefined : maskedUrl(new URL(before.url).origin);
    secrets.url = submitted.url.includes(MASK)
      ? keep('url', submitted.url, shown === submitted.url ? before.url : undefined)
      : submitted.url;
  }
  if (submitted.token !== undefined)
    secrets.token = submitted.token === MASK ? keep('token', MASK, before.token) : submitted.token;
  if (submitted.headers) {
    secrets.headers = Object.fromEntries(
      Object.entries(submitted.headers).map(([name, value]) => [
        name,
        value === MASK ? keep(`headers.${name}`, MASK, storedHeader(before.headers, name)) : value,
      ]),
    );
  }
  if (problems.length)
    throw invalidRequest(
      `the request has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}`,
      problems,
    );
  const { url: _u, token: _t, headers: _h, name: _n, type: _ty, default: _d, ...rest } = submitted;
  const settings: StoredChannelSettings = {
    ...rest,
    ...(secrets.url !== undefined && { urlOrigin: new URL(secrets.url).origin }),
    ...(secrets.token !== undefined && { hasToken: true }),
    ...(secrets.headers && { headerNames: Object.keys(secrets.headers) }),
  };
  const any = secrets.url !== undefined || secrets.token !== undefined || secrets.headers !== undefined;
  return { settings, secrets: any ? box.encrypt(JSON.stringify(secrets), id) : null };
}

/** The channel with its write-only parts opened, to send with. Throws if they do not open (another key). */
export function openChannel(c: ChannelRecord, box: SecretBox): SendableChannel {
  const { urlOrigin: _o, hasToken: _t, headerNames: _h, ...settings } = c.settings;
  return {
    id: c.id,
    keyId: c.keyId,
    settings: { name: c.name, type: c.type, default: c.default, ...settings, ...openSecrets(c, box) },
  };
}

function openSecrets(c: ChannelRecord, box: SecretBox): ChannelSecrets {
  if (c.secrets === null) return {};
  try {
    return JSON.parse(box.decrypt(c.secrets, c.id)) as ChannelSecrets;
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw new Error(
      `the channel's url, token and header values cannot be decrypted (${err.message}): start the service ` +
        'with the secrets key they were sealed with, or send them again with PATCH',
      { cause: err },
    );
  }
}

function storedHeader(headers: Record<string, string> | undefined, name: string): string | undefined {
  const match = Object.keys(headers ?? {}).find((h) => h.toLowerCase() === name.toLowerCase());
  return match === undefined ? undefined : headers![match];
}

/** The channel as the API shows it: write-only parts masked. */
export function channelView(c: ChannelRecord) {
  const s = c.settings;
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    ...(s.to && { to: s.to }),
    ...(s.urlOrigin !== undefined && { url: maskedUrl(s.urlOrigin) }),
    ...(s.hasToken && { token: MASK }),
    ...(s.headerNames && { headers: Object.fromEntries(s.headerNames.map((name) => [name, MASK])) }),
    templates: s.templates,
    digest: s.digest,
    digestAt: s.digestAt,
    ...(s.quietHours && { quietHours: s.quietHours }),
    default: c.default,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}
export type ChannelView = ReturnType<typeof channelView>;

/**
 * Where a channel delivery went, as the delivery log shows it: never a secret. Email: the recipients as
 * a mailto: URL; the others: the masked url.
 */
export function deliveryTarget(c: ChannelRecord): string {
  if (c.type === 'email') return `mailto:${(c.settings.to ?? []).join(',')}`;
  return maskedUrl(c.settings.urlOrigin ?? 'https://channel.invalid');
}

/** `data` of channel.test: which channel asked, and that no capture was taken. */
export function channelTestEventData(c: Pick<ChannelRecord, 'id' | 'name'>): Record<string, unknown> {
  return {
    channelId: c.id,
    name: c.name,
    test: true,
    message: 'A test message, sent on request: no capture was taken.',
  };
}
