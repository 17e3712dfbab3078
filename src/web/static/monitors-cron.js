// A schedule in words ("At 09:00, Monday through Friday, Europe/Paris"), for the list and for the form as
// the schedule is typed. The words come from cronstrue (vendored as cronstrue.min.js, MIT); the service
// stays the judge of what it accepts (node-cron, and the shortest interval), so a schedule that reads
// well here may still be refused on save, with the service's reason next to the field.
import '/assets/cronstrue.min.js';

const OPTIONS = { use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false };

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
    // cronstrue's messages read "minutes part must be >= 0 and <= 59": a sentence is made of them.
    const reason = String(err?.message ?? err)
      .replace(/^Error:\s*/, '')
      .replace(/\.$/, '');
    return { ok: false, problem: `Not a valid schedule: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}.` };
  }
}
