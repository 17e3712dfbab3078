// When a channel's alert goes out: at once, on the next hour (hourly digests), at the next `digestAt`
// (daily digests), and never inside quiet hours — every time on the wall clock of the monitor's time zone.
// Wall-clock times are read and made with Intl (the zone rules the runtime ships), so DST days are right:
// a time skipped by a spring-forward is taken as the first moment after the gap (an 02:30 that does not
// exist is 03:30), and a time that happens twice (fall-back) is its first occurrence.
import type { DigestMode, QuietHours } from '../domain/channels.js';

export type HeldFor = 'digest' | 'quiet_hours';

export interface ChannelPace {
  digest: DigestMode;
  /** Daily digests: "HH:MM". */
  digestAt: string;
  quietHours?: QuietHours;
}

/** `at`: when to send; `heldFor`: why not now (absent: at is `now`). */
export interface Release {
  at: Date;
  heldFor?: HeldFor;
}

/**
 * When an alert raised at `now` is sent. Quiet hours move a release that falls inside them to their
 * end (heldFor "quiet_hours", also for a digest they delay); otherwise a digest's release is "digest".
 * A release is always after `now` when held, so alerts released together form one message.
 */
export function releaseOf(now: Date, pace: ChannelPace, timeZone: string): Release {
  let at = now;
  let heldFor: HeldFor | undefined;
  if (pace.digest === 'hourly') {
    at = nextLocalHour(now, timeZone);
    heldFor = 'digest';
  } else if (pace.digest === 'daily') {
    at = nextLocalTime(now, pace.digestAt, timeZone);
    heldFor = 'digest';
  }
  if (pace.quietHours && inQuietHours(at, pace.quietHours, timeZone)) {
    at = nextLocalTime(at, pace.quietHours.end, timeZone);
    heldFor = 'quiet_hours';
  }
  return heldFor ? { at, heldFor } : { at: now };
}

/** Whether `t` is inside the quiet hours: from `start` (included) to `end` (excluded), across midnight if end < start. */
export function inQuietHours(t: Date, quiet: QuietHours, timeZone: string): boolean {
  const { hour, minute } = wallClock(t, timeZone);
  const now = hour * 60 + minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  return start <= end ? now >= start && now < end : now >= start || now < end;
}

const QUARTER_HOUR_MS = 15 * 60_000;

/**
 * The first top of an hour on the zone's wall clock strictly after `t`. Every zone's offset is a whole
 * number of quarter hours, so the hour starts on a UTC quarter hour: step through those (at most a few).
 */
export function nextLocalHour(t: Date, timeZone: string): Date {
  let candidate = Math.floor(t.getTime() / QUARTER_HOUR_MS) * QUARTER_HOUR_MS + QUARTER_HOUR_MS;
  while (wallClock(new Date(candidate), timeZone).minute !== 0) candidate += QUARTER_HOUR_MS;
  return new Date(candidate);
}

/** The first moment strictly after `t` at which the zone's wall clock reads `hhmm` ("HH:MM"). */
export function nextLocalTime(t: Date, hhmm: string, timeZone: string): Date {
  const [hour, minute] = hhmm.split(':').map(Number) as [number, number];
  const today = wallClock(t, timeZone);
  // Today's, tomorrow's or (past a skipped time late in the day) the day after's.
  for (let day = 0; day <= 2; day++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + day));
    const at = zonedInstant(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hour, minute, timeZone);
    if (at.getTime() > t.getTime()) return at;
  }
  throw new Error(`no ${hhmm} in ${timeZone} within two days of ${t.toISOString()}`);
}

/**
 * The instant the zone's wall clock reads this date and time: its first occurrence if it reads it twice,
 * and for a time the clock skips, the instant as far past the gap's start as the time is.
 */
export function zonedInstant(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  timeZone: string,
): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  // The offsets a day either side: a zone changes its offset at most once within them.
  const before = offsetMs(new Date(wall - 86_400_000), timeZone);
  const after = offsetMs(new Date(wall + 86_400_000), timeZone);
  const candidates = [wall - before, wall - after].filter((c) => localMs(new Date(c), timeZone) === wall);
  if (candidates.length) return new Date(Math.min(...candidates));
  // Skipped (spring forward): read with the offset before the gap, which lands just as far past it.
  return new Date(wall - before);
}

/** The zone's offset from UTC at `t` (ms; positive east of Greenwich). */
function offsetMs(t: Date, timeZone: string): number {
  return localMs(t, timeZone) - Math.floor(t.getTime() / 60_000) * 60_000;
}

/** The zone's wall-clock reading at `t` (to the minute) as if it were UTC. */
function localMs(t: Date, timeZone: string): number {
  const w = wallClock(t, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
}

const formats = new Map<string, Intl.DateTimeFormat>();

function wallClock(t: Date, timeZone: string) {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(t).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
  };
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}
