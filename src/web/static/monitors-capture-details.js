// What a capture says beyond its images: its text changes (removed text struck through, added text
// underlined, a changed block as its word-level diff), the notifyWhen rules and which were true, and the
// changed regions with the elements behind each. Pointing at or focusing a region (or a text change)
// outlines its box on the image shown.
import { $, h, RULE_TESTS, state } from '/assets/monitors-util.js';
import { hideOutline, showOutline } from '/assets/monitors-outline.js';
import { renderRegions } from '/assets/monitors-regions.js';

const KIND_WORDS = { added: 'Added', removed: 'Removed', changed: 'Changed' };
export const TEST_WORDS = Object.fromEntries(RULE_TESTS.map(([test, words]) => [test, words]));

/** Fills the details of capture `c` (of monitor `m`, for the rules' values). */
export function renderDetails(c, m) {
  hideOutline();
  renderTextChanges(c);
  renderConditions(c, m);
  renderRegions(c, m);
}

// ------------------------------------------------------------------------------------ text changes

/** A changed block's words (also shown in the row of the region it lies in): jsdiff parts, the removed ones in <del>, the added ones in <ins>. */
export function wordDiff(change) {
  if (Array.isArray(change.words) && change.words.length) {
    return change.words.map((part) =>
      part.removed ? h('del', {}, part.value) : part.added ? h('ins', {}, part.value) : String(part.value ?? ''),
    );
  }
  return [h('del', {}, change.before ?? ''), ' ', h('ins', {}, change.after ?? '')];
}

function renderTextChanges(c) {
  const changes = c.status === 'succeeded' ? (c.textChanges ?? []) : [];
  const total = c.textChangesTotal ?? changes.length;
  $('text-changes').replaceChildren(
    ...changes.map((change, i) =>
      h(
        'li',
        { class: `tc ${change.kind}`, dataset: { index: i } },
        h(
          'span',
          { class: 'tc-head' },
          h('span', { class: `tc-kind ${change.kind}` }, KIND_WORDS[change.kind] ?? change.kind),
          change.selector ? h('code', { class: 'tc-selector' }, change.selector) : null,
        ),
        h(
          'span',
          { class: 'tc-text' },
          change.kind === 'added'
            ? h('ins', {}, change.after ?? '')
            : change.kind === 'removed'
              ? h('del', {}, change.before ?? '')
              : wordDiff(change),
        ),
      ),
    ),
  );
  $('text-changes-none').hidden = changes.length > 0;
  $('text-changes-none').textContent =
    c.status === 'failed' ? 'None: the capture failed.' : c.baselineId ? 'None.' : 'None: this capture is a baseline.';
  const more = total - changes.length;
  $('text-changes-more').hidden = more <= 0;
  $('text-changes-more').textContent =
    more > 0 ? `…and ${more.toLocaleString()} more (a capture keeps the first ${changes.length}).` : '';
}

$('text-changes').addEventListener('mouseover', (event) => {
  const row = event.target.closest('li.tc');
  const hist = state.history;
  const c = hist?.captures.find((x) => x.id === hist.selectedId);
  const change = row && c?.textChanges?.[Number(row.dataset.index)];
  // A removed block's box is where it was in the previous capture, not in the image shown: not outlined.
  if (change?.box && change.kind !== 'removed') showOutline(change.box);
});
$('text-changes').addEventListener('mouseleave', hideOutline);

// ------------------------------------------------------------------------------------ conditions

/** "below 20", "contains “in stock”": the rule's own value, read from the monitor when it still has that rule. */
export function ruleValue(result, m) {
  const rule = m?.notifyWhen?.[result.index];
  if (!rule || rule.selector !== result.selector || rule[result.test] === undefined || rule[result.test] === true)
    return '';
  return typeof rule[result.test] === 'number' ? ` ${rule[result.test]}` : ` “${rule[result.test]}”`;
}

function renderConditions(c, m) {
  const results = c.conditions ?? [];
  const errors = c.conditionErrors ?? [];
  const met = c.conditionsMet ?? null;
  $('conditions-section').hidden = results.length === 0 && errors.length === 0 && met === null;
  $('conditions-met').replaceChildren(
    met === null
      ? ''
      : h(
          'span',
          { class: `badge ${met ? 'ok' : 'none'}`, dataset: { met: String(met) } },
          met ? 'Rules met' : 'Rules not met',
        ),
    met === null
      ? ''
      : met
        ? ' Every rule is true and one became true: a change is notified.'
        : ' Not every rule is true, or none became true: a change is not notified.',
  );
  $('conditions').replaceChildren(
    ...results.map((r) =>
      h(
        'li',
        { class: 'condition', dataset: { met: String(r.met) } },
        h('span', { class: `badge ${r.met ? 'ok' : 'none'}` }, r.met ? 'true' : 'false'),
        ' ',
        `Rule ${r.index + 1}: `,
        h('code', {}, r.selector),
        ` ${TEST_WORDS[r.test] ?? r.test}${ruleValue(r, m)}`,
        h(
          'span',
          { class: 'hint' },
          r.value === null || r.value === undefined
            ? ' · nothing matched'
            : ` · read ${typeof r.value === 'number' ? r.value : `“${r.value}”`}`,
        ),
      ),
    ),
  );
  $('condition-errors').replaceChildren(
    ...(errors.length
      ? [
          h(
            'div',
            { class: 'alert warn' },
            'Some rules could not be read:',
            h(
              'ul',
              {},
              errors.map((e) => h('li', {}, e)),
            ),
          ),
        ]
      : []),
  );
}
