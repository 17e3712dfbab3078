// Where a monitor's alerts go besides its signed webhook: a key's channels (email, chat, ntfy, a JSON
// webhook with a body of the user's own), each with its templates and its pace (at once, or gathered into
// a digest, and held through quiet hours). The HTTP schema (src/http/schemas/channels.ts) validates a
// request body into ChannelSettings; the channel store keeps it; the dispatcher and src/channels/ read it.

export const CHANNEL_TYPES = ['email', 'slack', 'discord', 'teams', 'ntfy', 'webhook'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** off: each alert at once; hourly: on the hour; daily: at `digestAt` in the monitor's time zone. */
export const DIGEST_MODES = ['off', 'hourly', 'daily'] as const;
export type DigestMode = (typeof DIGEST_MODES)[number];

/** Liquid templates (src/channels/templates.ts). Absent: the type's own message. */
export interface ChannelTemplates {
  /** email: the subject; ntfy: the title; slack, discord, teams: the message's heading. */
  subject?: string;
  /** email, chat, ntfy: the message text; webhook: the whole JSON body. */
  body?: string;
}

/** "HH:MM" (24 h) in the time zone of the monitor whose alert it is; `end` before `start` spans midnight. */
export interface QuietHours {
  start: string;
  end: string;
}

export interface ChannelSettings {
  name: string;
  type: ChannelType;
  /** email: the recipients. */
  to?: string[];
  /**
   * slack, discord, teams, webhook: the incoming-webhook URL; ntfy: the topic's URL. Write-only (an
   * incoming-webhook URL is its own credential): shown as its origin and "/••••".
   */
  url?: string;
  /** ntfy: an access token, sent as a Bearer token. Write-only. */
  token?: string;
  /** webhook: extra request headers; values write-only. */
  headers?: Record<string, string>;
  templates: ChannelTemplates;
  digest: DigestMode;
  /** daily digests: "HH:MM". */
  digestAt: string;
  quietHours?: QuietHours;
  /** A default channel alerts for every monitor of its key that lists no channels of its own. */
  default: boolean;
}
