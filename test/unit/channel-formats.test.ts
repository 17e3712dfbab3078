// Each chat format keeps within its service's documented limits (src/channels/{slack,discord,teams,ntfy}.ts),
// tested at and just over each edge, and the heading limit of every message.
import { describe, expect, it } from 'vitest';
import type { PreparedMessage } from '../../src/channels/deliver.js';
import { DISCORD_DESCRIPTION_MAX, DISCORD_TITLE_MAX, discordPayload } from '../../src/channels/discord.js';
import { NTFY_MESSAGE_MAX_BYTES, ntfyRequest } from '../../src/channels/ntfy.js';
import { SLACK_HEADER_MAX, SLACK_SECTION_MAX, slackPayload } from '../../src/channels/slack.js';
import { TEAMS_TEXT_MAX, teamsPayload } from '../../src/channels/teams.js';
import { alertVariables, messageVariables } from '../../src/channels/variables.js';

function message(title: string, body: string): PreparedMessage {
  const alert = alertVariables(
    {
      type: 'monitor.changed',
      timestamp: '2026-11-28T10:00:00.000Z',
      data: {
        monitorId: 'mon_1',
        captureId: 'cap_1',
        url: 'https://a.example',
        imageUrl: 'https://w.example/api/captures/cap_1/image',
      },
    },
    { name: 'A', url: 'https://a.example' },
    '',
  );
  return {
    channel: {
      id: 'chn_1',
      keyId: 'key_1',
      settings: { name: 'c', type: 'slack', templates: {}, digest: 'off', digestAt: '09:00', default: false },
    },
    vars: messageVariables([alert]),
    title,
    body,
    crops: () => Promise.resolve([]),
  };
}

describe('Slack', () => {
  it(`keeps a ${SLACK_HEADER_MAX}-character header and cuts one a character longer`, () => {
    const at = slackPayload(message('h'.repeat(SLACK_HEADER_MAX), 'x'));
    expect((at.blocks[0] as { text: { text: string } }).text.text).toBe('h'.repeat(SLACK_HEADER_MAX));
    const over = slackPayload(message('h'.repeat(SLACK_HEADER_MAX + 1), 'x'));
    expect((over.blocks[0] as { text: { text: string } }).text.text).toBe(`${'h'.repeat(SLACK_HEADER_MAX - 1)}…`);
  });

  it(`puts ${SLACK_SECTION_MAX} characters in one section and one more in two`, () => {
    const sections = (body: string) =>
      slackPayload(message('t', body)).blocks.filter((b) => b.type === 'section') as { text: { text: string } }[];
    expect(sections('a'.repeat(SLACK_SECTION_MAX)).map((s) => s.text.text.length)).toEqual([SLACK_SECTION_MAX]);
    expect(sections('a'.repeat(SLACK_SECTION_MAX + 1)).map((s) => s.text.text.length)).toEqual([SLACK_SECTION_MAX, 1]);
    // Split at a line end when there is one.
    const lines = `${'a'.repeat(2000)}\n${'b'.repeat(2000)}`;
    expect(sections(lines).map((s) => s.text.text)).toEqual(['a'.repeat(2000), 'b'.repeat(2000)]);
  });

  it('escapes &, < and > of a template body so no one forges a link or mention', () => {
    const section = slackPayload(message('t', '<!channel> <https://evil.example|click> & co')).blocks[1] as {
      text: { text: string };
    };
    expect(section.text.text).toBe('&lt;!channel&gt; &lt;https://evil.example|click&gt; &amp; co');
  });
});

describe('Discord', () => {
  it(`keeps ${DISCORD_TITLE_MAX}/${DISCORD_DESCRIPTION_MAX} characters and cuts one more`, () => {
    const at = discordPayload(message('t'.repeat(DISCORD_TITLE_MAX), 'd'.repeat(DISCORD_DESCRIPTION_MAX)), false);
    expect([at.embeds[0]!.title.length, at.embeds[0]!.description]).toEqual([
      DISCORD_TITLE_MAX,
      'd'.repeat(DISCORD_DESCRIPTION_MAX),
    ]);
    const over = discordPayload(
      message('t'.repeat(DISCORD_TITLE_MAX + 1), 'd'.repeat(DISCORD_DESCRIPTION_MAX + 1)),
      false,
    );
    expect(over.embeds[0]!.title).toBe(`${'t'.repeat(DISCORD_TITLE_MAX - 1)}…`);
    expect(over.embeds[0]!.description).toBe(`${'d'.repeat(DISCORD_DESCRIPTION_MAX - 1)}…`);
    expect(over.allowed_mentions).toEqual({ parse: [] });
  });
});

describe('Teams', () => {
  it(`keeps ${TEAMS_TEXT_MAX} characters of text and cuts one more`, () => {
    const text = (body: string) =>
      teamsPayload(message('t', body))
        .attachments[0]!.content.body.slice(1)
        .map((b) => (b as { text: string }).text)
        .join('');
    expect(text('x'.repeat(TEAMS_TEXT_MAX))).toBe('x'.repeat(TEAMS_TEXT_MAX));
    expect(text('x'.repeat(TEAMS_TEXT_MAX + 1))).toBe(`${'x'.repeat(TEAMS_TEXT_MAX - 1)}…`);
  });
});

describe('ntfy', () => {
  it(`sends ${NTFY_MESSAGE_MAX_BYTES} bytes of message whole and cuts one byte more, never inside a character`, () => {
    expect(ntfyRequest(message('t', 'm'.repeat(NTFY_MESSAGE_MAX_BYTES)), 'http://n.example/x', undefined).body).toBe(
      'm'.repeat(NTFY_MESSAGE_MAX_BYTES),
    );
    const over = String(
      ntfyRequest(message('t', 'm'.repeat(NTFY_MESSAGE_MAX_BYTES + 1)), 'http://n.example/x', undefined).body,
    );
    expect(Buffer.byteLength(over)).toBeLessThanOrEqual(NTFY_MESSAGE_MAX_BYTES);
    expect(over.endsWith('…')).toBe(true);
    const wide = String(ntfyRequest(message('t', '€'.repeat(2000)), 'http://n.example/x', undefined).body); // 3 bytes each
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(NTFY_MESSAGE_MAX_BYTES);
    expect(wide).toMatch(/^€+…$/);
  });

  it('keeps the topic path and puts the text in parameters when a crop is attached', () => {
    const r = ntfyRequest(message('Héllo → there', 'body ü'), 'https://n.example/base/alerts?x=1', Buffer.from('png'));
    const url = new URL(r.url);
    expect([r.method, url.pathname, url.searchParams.get('x')]).toEqual(['PUT', '/base/alerts', '1']);
    expect([url.searchParams.get('title'), url.searchParams.get('message')]).toEqual(['Héllo → there', 'body ü']);
  });
});
