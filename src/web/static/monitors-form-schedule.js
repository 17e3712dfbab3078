// The schedule in words under its field, as it is typed: "At 09:00, Monday through Friday, Europe/Paris",
// or why it cannot be read. Only a guide: the service judges the schedule on save (see monitors-cron.js).
import { describeSchedule } from '/assets/monitors-cron.js';
import { $ } from '/assets/monitors-util.js';

export function showScheduleWords() {
  const words = $('f-schedule-words');
  const expression = $('f-schedule').value;
  if (!expression.trim()) {
    words.textContent = '';
    words.classList.remove('invalid');
    return;
  }
  const schedule = describeSchedule(expression, $('f-timezone').value.trim() || 'UTC');
  words.textContent = schedule.ok ? `Runs: ${schedule.words}.` : schedule.problem;
  words.classList.toggle('invalid', !schedule.ok);
}

$('f-schedule').addEventListener('input', showScheduleWords);
$('f-timezone').addEventListener('input', showScheduleWords);
