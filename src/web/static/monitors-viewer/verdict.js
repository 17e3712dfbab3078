// A capture's verdict in words, from the capture and its monitor's diff settings: what was decided
// (changed, unchanged, below the threshold, a baseline, failed…) and why, so the numbers and the red
// regions shown beside it never contradict the badge. The same reading gives the history list its badge,
// and the monitor list its "last result" badge next to "paused".
import { html } from '/assets/monitors-app/html.js';
import { percent } from '/assets/monitors-app/format.js';
import { useStore } from '/assets/monitors-app/context.js';

/** kind → [badge words, badge style]. The kinds are also the badges' data-status. */
export const VERDICT_BADGE = {
  failed: ['failed', 'error'],
  baseline: ['baseline', 'info'],
  changed: ['changed', 'warn'],
  unchanged: ['unchanged', 'ok'],
  'below-threshold': ['below threshold', 'below'],
  'not-confirmed': ['not confirmed', 'below'],
  'not-counted': ['not counted', 'below'],
  suspect: ['suspect', 'below'],
  filter_missing: ['filter missing', 'below'],
};

const px = (n) => `${Math.round(n).toLocaleString('en')} px`;
const plural = (n, one, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** How many pixels the capture was compared over (ignored areas left out), from diffPixels / diffRatio. */
function comparedPixels(c) {
  if (c.diffPixels > 0 && c.diffRatio > 0) return Math.round(c.diffPixels / c.diffRatio);
  return (c.width ?? 0) * (c.height ?? 0);
}

/** "1,024 px / 0.10 %": a monitor's minChangeRatio in pixels of this capture, and as a share. */
function minimumWords(c, ratio) {
  // The smallest count that passes; less a hair of rounding (0.01 × 1,024,000 is 10240.000000000002).
  return `${px(Math.ceil(ratio * comparedPixels(c) - 1e-6))} / ${percent(ratio)}`;
}

const differWords = (c) =>
  `${px(c.diffPixels)} (${percent(c.diffRatio)}) differ in ${plural(c.regions?.length ?? 0, 'region')}`;

/** What the monitor leaves out of every comparison, in words; '' when nothing. */
function ignoredWords(m) {
  const selectors = m?.diff?.ignoreSelectors ?? [];
  const boxes = m?.diff?.ignoreRegions ?? [];
  const parts = [];
  if (selectors.length) parts.push(`the elements matching ${selectors.join(', ')}`);
  if (boxes.length) parts.push(plural(boxes.length, 'ignored area'));
  return parts.length ? `Left out of the comparison: ${parts.join(' and ')} (tinted blue on the Diff view).` : '';
}

/**
 * The verdict of capture `c` of monitor `m`: { kind, sentences, edit }. `edit` is true when a setting
 * of the monitor decided it and Edit can change that setting.
 */
export function verdictOf(c, m) {
  const diff = m?.diff ?? {};
  const mode = diff.mode ?? 'visual';
  const minRatio = diff.minChangeRatio ?? 0;
  const regions = c.regions?.length ?? 0;
  const texts = c.textChangesTotal ?? 0;
  const notes = [ignoredWords(m), c.truncated ? 'The page was cut at the size limit.' : ''].filter(Boolean);
  if (c.status === 'failed') {
    const error = c.error
      ? `The capture failed (${c.error.code}): ${c.error.message.replace(/\.?$/, '.')}`
      : 'The capture failed; no reason was recorded.';
    return {
      kind: 'failed',
      sentences: [error, 'There is no image; the next capture is compared with the last one that succeeded.'],
      edit: false,
    };
  }
  // Never compared, never a change: the page did not look like itself, or the filter found nothing.
  if (c.status === 'suspect') {
    const why = c.error?.message ? c.error.message.replace(/\.?$/, '') : 'the page did not look like the real one';
    return {
      kind: 'suspect',
      sentences: [
        `Suspect: ${why} — not compared, not a change.`,
        'The next capture is compared with the last good one.',
        ...notes,
      ],
      edit: false,
    };
  }
  if (c.status === 'filter_missing') {
    return {
      kind: 'filter_missing',
      sentences: [
        `The filter stopped matching${c.error?.message ? `: ${c.error.message.replace(/\.?$/, '')}` : ''} — not compared, not a change.`,
        `After ${m?.diff?.filterMissingAfter ?? 3} such captures in a row the webhook is told (monitor.filter_missing). Change the filters in Edit.`,
        ...notes,
      ],
      edit: true,
    };
  }
  if (!c.baselineId) {
    return {
      kind: 'baseline',
      sentences: [
        'A baseline: the first capture (or the first since the page or its capture settings changed), so there is nothing to compare it with and nothing is reported.',
        'The next capture is compared with it.',
      ],
      edit: false,
    };
  }
  if (c.changed) {
    const why = [];
    if (mode !== 'text' && regions > 0)
      why.push(
        minRatio > 0
          ? `${differWords(c)}, at or over this monitor's threshold (${minimumWords(c, minRatio)})`
          : `${differWords(c)}; this monitor has no minimum (min change ratio 0), so any changed region counts`,
      );
    if (mode !== 'visual' && texts > 0) why.push(`${plural(texts, 'text change')} (mode: ${modeWords(mode)})`);
    const sentences = [`Changed: ${why.join('; and ') || 'the page differs from the previous capture'}.`];
    if (c.confirmed) sentences.push('A second capture, taken to confirm it, still showed it.');
    if (c.conditionsMet === false)
      sentences.push('The notify-when rules were not met, so no monitor.changed webhook was sent for it.');
    else if (c.conditionsMet === true) sentences.push('The notify-when rules were met: it was reported.');
    else sentences.push('It was reported as a change.');
    return { kind: 'changed', sentences: [...sentences, ...notes], edit: c.conditionsMet === false };
  }
  // Not a change. Which gate stopped it, most specific first.
  if (c.confirmed) {
    return {
      kind: 'not-confirmed',
      sentences: [
        'Not reported: a change was seen, but a second capture taken to confirm it no longer showed it (a passing banner, an animation caught mid-way).',
        regions > 0 ? `What the second capture still differs by: ${differWords(c)}.` : '',
        ...notes,
      ].filter(Boolean),
      edit: false,
    };
  }
  if (regions > 0 && mode === 'text') {
    return {
      kind: 'not-counted',
      sentences: [
        `${differWords(c)}, but this monitor counts only text changes (mode: text only) and the text is the same: not reported. Change it in Edit.`,
        ...notes,
      ],
      edit: true,
    };
  }
  if (regions > 0) {
    const then =
      c.diffRatio >= minRatio ? 'the threshold it had when this capture was taken' : 'this monitor’s threshold';
    return {
      kind: 'below-threshold',
      sentences: [
        `${differWords(c)}, below ${then} (${minimumWords(c, minRatio)}, the min change ratio): not reported. Change it in Edit.`,
        ...notes,
      ],
      edit: true,
    };
  }
  if (texts > 0) {
    return {
      kind: 'not-counted',
      sentences: [
        `${plural(texts, 'text change')}, but no pixel changed enough to count, and this monitor counts pixels only (mode: pixels): not reported. Change it in Edit.`,
        ...notes,
      ],
      edit: true,
    };
  }
  return {
    kind: 'unchanged',
    sentences: ['Unchanged: no pixel differs from the previous capture (beyond anti-aliasing and specks).', ...notes],
    edit: false,
  };
}

function modeWords(mode) {
  return { visual: 'pixels', text: 'text only', both: 'pixels or text' }[mode] ?? mode;
}

/** The history list's short words beside the badge. */
export function listWords(c, kind) {
  if (kind === 'failed') return null;
  if (kind === 'suspect' || kind === 'filter_missing') return 'not compared';
  if (kind === 'baseline') return 'nothing to compare with';
  if (kind === 'unchanged') return 'no pixel differs';
  const share = `${percent(c.diffRatio)} of pixels differ`;
  if (kind === 'below-threshold') return `${share}, under the threshold`;
  return share;
}

/** The verdict's badge: data-status is its kind. */
export function VerdictBadge({ kind }) {
  const [words, style] = VERDICT_BADGE[kind] ?? [kind, 'none'];
  return html`<span class="badge ${style}" data-status=${kind}>${words}</span>`;
}

/** The monitor list's last result next to "paused" (its own attribute: the row's status stays "paused"). */
export function LastResultBadge({ status }) {
  const [words, style] = VERDICT_BADGE[status] ?? ['not run yet', 'none'];
  return html`<span class="badge ${style} last-result" data-last=${status}>last: ${words}</span>`;
}

/** The viewer's verdict box for capture `c` of monitor `m`. */
export function Verdict({ c, m }) {
  const store = useStore();
  const v = verdictOf(c, m);
  return html`<div id="verdict" class="verdict ${v.kind}" data-kind=${v.kind}>
    <p class="verdict-head">
      <${VerdictBadge} kind=${v.kind} />${' '}<span class="verdict-text">${v.sentences[0]}</span>
    </p>
    ${v.sentences.slice(1).map((sentence) => html`<p class="verdict-more">${sentence}</p>`)}
    ${
      v.edit && m
        ? html`<p class="verdict-more">
            <button type="button" class="small" id="verdict-edit" onClick=${() => store.openEdit(m.id)}>
              Edit this monitor’s settings
            </button>
          </p>`
        : null
    }
  </div>`;
}
