// The built-in wording of a message, shared by every channel type: its heading and its lines (verdict,
// summary, each text change, the link), before a format marks them up in its own way. A channel with
// templates replaces the heading (subject) or the text (body) with its own.
import type { AlertVariables, ChangeVariable, MessageVariables } from './variables.js';

/** Text changes listed per alert in the built-in message (the event carries at most 10). */
export const LISTED_CHANGES = 10;

/** "Pricing page: Changed", or "3 alerts from Pagewatch" for a digest. */
export function defaultTitle(vars: MessageVariables): string {
  if (vars.digest) return `${vars.count} alerts from Pagewatch`;
  const alert = vars.alerts[0]!;
  return alert.monitor ? `${alert.monitor.name}: ${alert.verdict}` : `Pagewatch: ${alert.verdict}`;
}

/** How a format writes removed and added text, and plain text; its own escaping included. */
export interface Markup {
  text(s: string): string;
  removed(s: string): string;
  added(s: string): string;
  link(label: string, url: string): string;
  bold(s: string): string;
}

export const PLAIN: Markup = {
  text: (s) => s,
  removed: (s) => `[-${s}-]`,
  added: (s) => `{+${s}+}`,
  link: (label, url) => `${label}: ${url}`,
  bold: (s) => s,
};

/** One text change, removed and added parts marked up: a changed block word by word when it can be. */
export function changeLine(change: ChangeVariable, m: Markup): string {
  const where = change.selector ? ` (${m.text(change.selector)})` : '';
  if (change.kind === 'added') return `Added: ${m.added(change.after ?? '')}${where}`;
  if (change.kind === 'removed') return `Removed: ${m.removed(change.before ?? '')}${where}`;
  if (change.words?.length) {
    const parts = wholeWords(change.words).map((p) =>
      p.removed ? m.removed(p.value) : p.added ? m.added(p.value) : m.text(p.value),
    );
    return `Changed: ${parts.join('')}${where}`;
  }
  return `Changed: ${m.removed(change.before ?? '')} → ${m.added(change.after ?? '')}${where}`;
}

type Part = NonNullable<ChangeVariable['words']>[number];

/**
 * The word diff with each change widened to whole words: "Price: $[-24-]{+19+}.99" reads as
 * "Price: [-$24.99-]{+$19.99+}". The unchanged letters next to a change go to both of its sides.
 */
export function wholeWords(words: readonly Part[]): Part[] {
  const out: Part[] = [];
  let i = 0;
  while (i < words.length) {
    const part = words[i]!;
    if (!part.added && !part.removed) {
      out.push({ value: part.value });
      i++;
      continue;
    }
    let removed = '';
    let added = '';
    while (i < words.length && (words[i]!.added || words[i]!.removed)) {
      if (words[i]!.removed) removed += words[i]!.value;
      else added += words[i]!.value;
      i++;
    }
    // The end of the unchanged text before, back to its last space, joins the change…
    const previous = out.at(-1);
    const head = previous && !previous.added && !previous.removed ? (/\S*$/.exec(previous.value)?.[0] ?? '') : '';
    if (previous && head) previous.value = previous.value.slice(0, previous.value.length - head.length);
    // …and so does the start of the unchanged text after, up to its first space.
    const next = words[i];
    const tail = next && !next.added && !next.removed ? (/^\S*/.exec(next.value)?.[0] ?? '') : '';
    if (previous && !previous.value) out.pop();
    if (head + removed + tail) out.push({ value: head + removed + tail, removed: true });
    if (head + added + tail) out.push({ value: head + added + tail, added: true });
    if (next && tail) {
      const rest = next.value.slice(tail.length);
      if (rest) out.push({ value: rest });
      i++;
    }
  }
  return out;
}

/** The lines of one alert in the built-in message. */
export function alertLines(alert: AlertVariables, m: Markup, withHeading: boolean): string[] {
  const lines: string[] = [];
  if (withHeading)
    lines.push(m.bold(m.text(alert.monitor ? `${alert.monitor.name}: ${alert.verdict}` : alert.verdict)));
  if (alert.monitor?.url) lines.push(m.text(alert.monitor.url));
  if (alert.message) lines.push(m.text(alert.message));
  if (alert.error && !withHeading) lines.push(m.text(`${alert.error.code}: ${alert.error.message}`));
  if (alert.summary) lines.push(m.text(alert.summary));
  if (alert.price?.price !== undefined && alert.price.price !== null)
    lines.push(m.text(`Price: ${alert.price.price}${alert.price.currency ? ` ${alert.price.currency}` : ''}`));
  for (const change of alert.changes.slice(0, LISTED_CHANGES)) lines.push(changeLine(change, m));
  const more = alert.changesTotal - Math.min(alert.changes.length, LISTED_CHANGES);
  if (more > 0) lines.push(m.text(`… and ${more} more text changes`));
  if (alert.links.capture) lines.push(m.link('See the capture', alert.links.capture));
  return lines;
}

/** The built-in text of the whole message: one alert, or each alert of a digest under its heading. */
export function defaultText(vars: MessageVariables, m: Markup): string {
  if (!vars.digest) return alertLines(vars.alerts[0]!, m, false).join('\n');
  return vars.alerts.map((a) => alertLines(a, m, true).join('\n')).join('\n\n');
}

/** `s` cut to `max` characters (an ellipsis marking the cut). */
export function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
