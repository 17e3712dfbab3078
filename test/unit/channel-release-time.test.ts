// When a channel's alert is released (src/channels/release-time.ts): hourly and daily digests and quiet
// hours on the wall clock of the monitor's time zone, across DST changes, midnight and odd offsets.
import { describe, expect, it } from 'vitest';
import {
  inQuietHours,
  nextLocalHour,
  nextLocalTime,
  releaseOf,
  zonedInstant,
  type ChannelPace,
} from '../../src/channels/release-time.js';

const at = (iso: string) => new Date(iso);
const pace = (p: Partial<ChannelPace>): ChannelPace => ({ digest: 'off', digestAt: '09:00', ...p });
const release = (now: string, p: Partial<ChannelPace>, zone = 'UTC') => {
  const r = releaseOf(at(now), pace(p), zone);
  return { at: r.at.toISOString(), heldFor: r.heldFor };
};

describe('releaseOf', () => {
  it('sends at once without digest or quiet hours', () => {
    expect(release('2026-03-02T10:05:00.000Z', {})).toEqual({ at: '2026-03-02T10:05:00.000Z', heldFor: undefined });
  });

  it('hourly: the next top of the hour, strictly after now', () => {
    expect(release('2026-03-02T10:05:00.000Z', { digest: 'hourly' })).toEqual({
      at: '2026-03-02T11:00:00.000Z',
      heldFor: 'digest',
    });
    expect(release('2026-03-02T10:00:00.000Z', { digest: 'hourly' }).at).toBe('2026-03-02T11:00:00.000Z');
    expect(release('2026-03-02T23:59:59.999Z', { digest: 'hourly' }).at).toBe('2026-03-03T00:00:00.000Z');
  });

  it('hourly: the hour of a zone half an hour off UTC (Asia/Kolkata, +05:30)', () => {
    // 15:35 IST → 16:00 IST
    expect(release('2026-03-02T10:05:00.000Z', { digest: 'hourly' }, 'Asia/Kolkata').at).toBe(
      '2026-03-02T10:30:00.000Z',
    );
    // Nepal, +05:45: 15:50 NPT → 16:00 NPT
    expect(release('2026-03-02T10:05:00.000Z', { digest: 'hourly' }, 'Asia/Kathmandu').at).toBe(
      '2026-03-02T10:15:00.000Z',
    );
  });

  it('hourly: through the hour that happens twice when clocks go back (Europe/Paris, 25 Oct 2026)', () => {
    // 02:30 CEST → the next top of an hour is 02:00 CET, an hour of real time later
    expect(release('2026-10-25T00:30:00.000Z', { digest: 'hourly' }, 'Europe/Paris').at).toBe(
      '2026-10-25T01:00:00.000Z',
    );
    // 02:30 CET → 03:00 CET
    expect(release('2026-10-25T01:30:00.000Z', { digest: 'hourly' }, 'Europe/Paris').at).toBe(
      '2026-10-25T02:00:00.000Z',
    );
  });

  it('hourly: across the hour skipped when clocks go forward (Europe/Paris, 29 Mar 2026)', () => {
    // 01:30 CET → 03:00 CEST (02:00 does not exist): 30 minutes of real time
    expect(release('2026-03-29T00:30:00.000Z', { digest: 'hourly' }, 'Europe/Paris').at).toBe(
      '2026-03-29T01:00:00.000Z',
    );
  });

  it('daily: at digestAt in the monitor time zone (Asia/Tokyo, +09:00)', () => {
    // 10:00 JST on 2 Mar: today's 09:00 has passed → 09:00 JST on 3 Mar
    expect(release('2026-03-02T01:00:00.000Z', { digest: 'daily', digestAt: '09:00' }, 'Asia/Tokyo')).toEqual({
      at: '2026-03-03T00:00:00.000Z',
      heldFor: 'digest',
    });
    // 08:00 JST on 2 Mar (still 1 Mar in UTC) → 09:00 JST the same day
    expect(release('2026-03-01T23:00:00.000Z', { digest: 'daily', digestAt: '09:00' }, 'Asia/Tokyo').at).toBe(
      '2026-03-02T00:00:00.000Z',
    );
    // exactly 09:00 JST: the next day's
    expect(release('2026-03-02T00:00:00.000Z', { digest: 'daily', digestAt: '09:00' }, 'Asia/Tokyo').at).toBe(
      '2026-03-03T00:00:00.000Z',
    );
  });

  it('daily: the day after clocks go forward keeps the wall time, not 24 hours (Europe/Paris)', () => {
    // 10:00 CET Sat 28 Mar → 09:00 CEST Sun 29 Mar = 07:00Z (23 hours later)
    expect(release('2026-03-28T09:00:00.000Z', { digest: 'daily', digestAt: '09:00' }, 'Europe/Paris').at).toBe(
      '2026-03-29T07:00:00.000Z',
    );
    // and the day clocks go back: 09:00 CET Sun 25 Oct = 08:00Z (25 hours after 09:00 CEST Sat)
    expect(release('2026-10-24T07:30:00.000Z', { digest: 'daily', digestAt: '09:00' }, 'Europe/Paris').at).toBe(
      '2026-10-25T08:00:00.000Z',
    );
  });

  it('daily: a digestAt the clock skips is the moment as far past the gap; one it reads twice, the first', () => {
    // 02:30 does not exist on 29 Mar in Paris → 03:30 CEST = 01:30Z
    expect(release('2026-03-28T12:00:00.000Z', { digest: 'daily', digestAt: '02:30' }, 'Europe/Paris').at).toBe(
      '2026-03-29T01:30:00.000Z',
    );
    // 02:30 happens twice on 25 Oct → the first (CEST) = 00:30Z
    expect(release('2026-10-24T12:00:00.000Z', { digest: 'daily', digestAt: '02:30' }, 'Europe/Paris').at).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    // New York, 8 Mar 2026: 02:15 skipped → 03:15 EDT = 07:15Z
    expect(release('2026-03-07T20:00:00.000Z', { digest: 'daily', digestAt: '02:15' }, 'America/New_York').at).toBe(
      '2026-03-08T07:15:00.000Z',
    );
  });

  it('quiet hours spanning midnight hold until they end, and not past their edges', () => {
    const quietHours = { start: '22:00', end: '07:00' };
    expect(release('2026-03-02T23:15:00.000Z', { quietHours })).toEqual({
      at: '2026-03-03T07:00:00.000Z',
      heldFor: 'quiet_hours',
    });
    expect(release('2026-03-03T06:59:00.000Z', { quietHours }).at).toBe('2026-03-03T07:00:00.000Z');
    expect(release('2026-03-02T22:00:00.000Z', { quietHours }).heldFor).toBe('quiet_hours'); // start included
    expect(release('2026-03-03T07:00:00.000Z', { quietHours })).toEqual({
      at: '2026-03-03T07:00:00.000Z',
      heldFor: undefined,
    }); // end excluded
    expect(release('2026-03-02T21:59:00.000Z', { quietHours }).heldFor).toBeUndefined();
  });

  it('quiet hours within a day, and in the monitor zone across a DST change (America/New_York)', () => {
    expect(release('2026-03-02T12:30:00.000Z', { quietHours: { start: '12:00', end: '13:00' } })).toEqual({
      at: '2026-03-02T13:00:00.000Z',
      heldFor: 'quiet_hours',
    });
    expect(release('2026-03-02T11:59:00.000Z', { quietHours: { start: '12:00', end: '13:00' } }).heldFor).toBe(
      undefined,
    );
    // 23:00 EST on 7 Mar; quiet until 07:00, which is EDT by then (11:00Z, not 12:00Z)
    expect(
      release('2026-03-08T04:00:00.000Z', { quietHours: { start: '22:00', end: '07:00' } }, 'America/New_York').at,
    ).toBe('2026-03-08T11:00:00.000Z');
  });

  it('quiet hours and a digest together: a release inside quiet hours waits for their end', () => {
    const quietHours = { start: '22:00', end: '07:00' };
    // hourly at 22:00 would be quiet → 07:00
    expect(release('2026-03-02T21:10:00.000Z', { digest: 'hourly', quietHours })).toEqual({
      at: '2026-03-03T07:00:00.000Z',
      heldFor: 'quiet_hours',
    });
    // hourly at 21:00 is before them → a digest
    expect(release('2026-03-02T20:10:00.000Z', { digest: 'hourly', quietHours })).toEqual({
      at: '2026-03-02T21:00:00.000Z',
      heldFor: 'digest',
    });
    // daily at 06:00, quiet until 07:00 → 07:00
    expect(release('2026-03-02T10:00:00.000Z', { digest: 'daily', digestAt: '06:00', quietHours })).toEqual({
      at: '2026-03-03T07:00:00.000Z',
      heldFor: 'quiet_hours',
    });
    // daily at 09:00 in Tokyo, quiet 08:00–10:00 JST → 10:00 JST
    expect(
      release(
        '2026-03-02T03:00:00.000Z',
        { digest: 'daily', digestAt: '09:00', quietHours: { start: '08:00', end: '10:00' } },
        'Asia/Tokyo',
      ),
    ).toEqual({ at: '2026-03-03T01:00:00.000Z', heldFor: 'quiet_hours' });
  });
});

describe('wall-clock helpers', () => {
  it('zonedInstant reads a wall time in a zone', () => {
    expect(zonedInstant(2026, 7, 1, 9, 0, 'Europe/Paris').toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(zonedInstant(2026, 1, 1, 9, 0, 'Europe/Paris').toISOString()).toBe('2026-01-01T08:00:00.000Z');
    expect(zonedInstant(2026, 1, 1, 0, 0, 'Pacific/Kiritimati').toISOString()).toBe('2025-12-31T10:00:00.000Z');
  });

  it('nextLocalHour and nextLocalTime are strictly after the instant', () => {
    expect(nextLocalHour(at('2026-01-01T00:00:00.000Z'), 'UTC').toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(nextLocalTime(at('2026-01-01T09:00:00.000Z'), '09:00', 'UTC').toISOString()).toBe(
      '2026-01-02T09:00:00.000Z',
    );
    // 31 Dec → 1 Jan (a new month and year on the wall clock)
    expect(nextLocalTime(at('2026-12-31T20:00:00.000Z'), '08:00', 'Asia/Tokyo').toISOString()).toBe(
      '2026-12-31T23:00:00.000Z',
    );
  });

  it('inQuietHours is in the given zone', () => {
    const quiet = { start: '22:00', end: '07:00' };
    expect(inQuietHours(at('2026-03-02T14:00:00.000Z'), quiet, 'Asia/Tokyo')).toBe(true); // 23:00 JST
    expect(inQuietHours(at('2026-03-02T14:00:00.000Z'), quiet, 'UTC')).toBe(false);
  });
});
