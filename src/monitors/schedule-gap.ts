// The shortest time between two runs of a cron schedule, from node-cron's own reading of it (its
// parser expands steps, lists and ranges; its matcher decides which days run), so the limit judges
// exactly what the scheduler will do.
import cron from 'node-cron';

const DAY = 86_400;
/**
 * Two consecutive days both matching is the only calendar fact the gap depends on (runs two or more
 * days apart are > 1 day apart). The Gregorian calendar repeats every 28 years between 1901 and 2099:
 * these years hold every combination of day of month, month, weekday and leap day.
 */
const CALENDAR_CYCLE = { fromYear: 2000, years: 28 };

/**
 * Seconds between the two closest runs of `expression` (5 fields, minute first, or 6, second
 * first), on the wall clock of the schedule's zone. Infinity for a schedule that runs once a year or
 * less often in a way that never brings two runs within a day of each other. The expression must be valid.
 *
 * `enough`: the caller only needs to know whether the gap is below it. When the runs either side of
 * midnight are at least that far apart, the day-by-day scan (up to ~0.1 s of CPU for L/W/# tokens) is
 * skipped and some gap of at least `enough` is returned, so a request cannot make validation expensive.
 */
export function shortestGapSeconds(expression: string, enough = Infinity): number {
  const fields = cron.parse(expression);
  const seconds = sortedUnique(fields.second);
  const minutes = sortedUnique(fields.minute);
  const hours = sortedUnique(fields.hour);
  // The times of day form a grid (hour × minute × second): neighbours differ in the last field that moves.
  const secondSpan = last(seconds) - seconds[0]!;
  const minuteSpan = (last(minutes) - minutes[0]!) * 60 + secondSpan;
  const withinDay = Math.min(
    smallestStep(seconds),
    smallestStep(minutes) * 60 - secondSpan,
    smallestStep(hours) * 3600 - minuteSpan,
  );
  // From the day's last run to the next day's first: only if two consecutive days both run.
  const first = hours[0]! * 3600 + minutes[0]! * 60 + seconds[0]!;
  const lastRun = last(hours) * 3600 + last(minutes) * 60 + last(seconds);
  const acrossMidnight = DAY - (lastRun - first);
  if (
    acrossMidnight >= withinDay ||
    acrossMidnight >= enough ||
    !consecutiveDaysRun(expression, fields, lastRun, first)
  )
    return withinDay;
  return acrossMidnight;
}

function consecutiveDaysRun(
  expression: string,
  fields: ReturnType<typeof cron.parse>,
  lastRun: number,
  first: number,
): boolean {
  // node-cron runs on a day only if its month, day of month and weekday all match: the plain-number
  // sets rule out most days cheaply (a set holding "L", "W" or "#" tokens rules out none). node-cron's
  // own matcher, much slower (it formats dates), has the last word on the days left.
  const months = numbers(fields.month);
  const daysOfMonth = numbers(fields.dayOfMonth);
  const weekdays = numbers(fields.dayOfWeek);
  const mayRun = (ms: number) => {
    const d = new Date(ms);
    return (
      (!months || months.has(d.getUTCMonth() + 1)) &&
      (!daysOfMonth || daysOfMonth.has(d.getUTCDate())) &&
      (!weekdays || weekdays.has(d.getUTCDay()))
    );
  };
  const task = cron.createTask(expression, () => {}, { timezone: 'UTC' }); // never started: used for its matcher
  try {
    const start = Date.UTC(CALENDAR_CYCLE.fromYear, 0, 1);
    const days = Math.round((Date.UTC(CALENDAR_CYCLE.fromYear + CALENDAR_CYCLE.years, 0, 1) - start) / (DAY * 1000));
    for (let d = 0; d < days; d++) {
      const lastOfDay = start + d * DAY * 1000 + lastRun * 1000;
      const firstOfNext = start + (d + 1) * DAY * 1000 + first * 1000;
      if (!mayRun(lastOfDay) || !mayRun(firstOfNext)) continue;
      if (task.match(new Date(lastOfDay)) && task.match(new Date(firstOfNext))) return true;
    }
    return false;
  } finally {
    void task.destroy();
  }
}

/** The values of a parsed field as a set, or undefined when it holds tokens (L, W, #) only node-cron can judge. */
function numbers(values: (number | string)[]): Set<number> | undefined {
  return values.every((v) => typeof v === 'number') ? new Set(values) : undefined;
}

function sortedUnique(values: (number | string)[]): number[] {
  return [...new Set(values.map(Number))].sort((a, b) => a - b);
}

const last = (values: number[]) => values[values.length - 1]!;

/** The smallest difference between neighbours of a sorted list; Infinity for a single value. */
function smallestStep(values: number[]): number {
  let step = Infinity;
  for (let i = 1; i < values.length; i++) step = Math.min(step, values[i]! - values[i - 1]!);
  return step;
}
