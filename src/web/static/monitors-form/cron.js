// A schedule in words ("At 09:00, Monday through Friday, Europe/Paris"), for the list and for the form as
// the schedule is typed. The words come from cronstrue (vendored as cronstrue.min.js, MIT); the service
// stays the judge of what it accepts (node-cron, and the shortest interval), so a schedule that reads
// well here may still be refused on save, with the service's reason next to the field.
import '/assets/cronstrue.min.js';

const OPTIONS = { use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false };

/** cronstrue's field names ("DOM part must be >= 1 and <= 31") in words. */
const FIELD_WORDS = {
  seconds: 'the second',
  minutes: 'the minute',
  hours: 'the hour',
  DOM: 'the day of the month',
  month: 'the month',
  DOW: 'the day of the week',
};

/** One of cronstrue's messages as part of a sentence: "the minute must be from 0 to 59". */
function plain(message) {
  const reason = message.replace(/^Error:\s*/, '').replace(/\.$/, '');
  const range = /^(\w+) part must be >= (\d+) and <= (\d+)$/.exec(reason);
  if (range && FIELD_WORDS[range[1]]) return `${FIELD_WORDS[range[1]]} must be from ${range[2]} to ${range[3]}`;
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}

/**
 * { ok: true, words } or { ok: false, problem } for a cron expression and its time zone. Five fields
 * (minute first) or six (seconds first), as the API takes: cronstrue would also read a seventh (years).
 */
export function describeSchedule(expression, timezone) {
  const text = String(expression ?? '')
    .trim()
    .replace(/\s+/g, ' ');
  if (!text) return { ok: false, problem: 'Enter a schedule.' };
  const fields = text.split(' ').length;
  if (fields < 5 || fields > 6)
    return { ok: false, problem: `A schedule has 5 fields (or 6 with seconds first); this one has ${fields}.` };
  try {
    const words = globalThis.cronstrue.toString(text, OPTIONS);
    return { ok: true, words: timezone ? `${words}, ${timezone}` : words };
  } catch (err) {
    return { ok: false, problem: `Not a valid schedule: ${plain(String(err?.message ?? err))}.` };
  }
}
