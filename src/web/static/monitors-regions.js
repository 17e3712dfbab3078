// The changed regions of a capture, one row each: a button that selects the region (its before / after
// crops, the slider and the actual-size view move to it: monitors-region-zoom.js), the elements behind it,
// and the text changes and notify-when rules that lie in it. Pointing at or focusing a row outlines its
// region on the image shown.
import { ruleValue, TEST_WORDS, wordDiff } from '/assets/monitors-capture-details.js';
import { hideOutline, showOutline } from '/assets/monitors-outline.js';
import { selectRegion } from '/assets/monitors-region-zoom.js';
import { $, h, state } from '/assets/monitors-util.js';

const boxWords = (r) => `x ${r.x}, y ${r.y}, ${r.width} × ${r.height} px`;

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The text changes whose block lies in the region (a removed block: where it was, which is near enough). */
const textsIn = (c, r) => (c.textChanges ?? []).filter((t) => t.box && overlaps(t.box, r));

/**
 * The notify-when rules that read an element of the region: the same selector, or the text (or number)
 * the rule read is the text of one of the region's elements.
 */
function rulesIn(c, r) {
  const elements = r.elements ?? [];
  return (c.conditions ?? []).filter((rule) =>
    elements.some(
      (el) =>
        el.selector === rule.selector ||
        (rule.value !== null &&
          rule.value !== undefined &&
          String(rule.value).trim() !== '' &&
          typeof el.after === 'string' &&
          (typeof rule.value === 'number' ? el.after.includes(String(rule.value)) : el.after === rule.value)),
    ),
  );
}

function elementItem(el) {
  const text = (value) =>
    value === null || value === undefined
      ? h('span', { class: 'muted' }, 'not there')
      : value === ''
        ? h('span', { class: 'muted' }, 'no text')
        : value;
  return h(
    'li',
    { class: 'element' },
    h('span', { class: 'el-head' }, h('code', {}, el.selector), h('span', { class: 'hint' }, ` <${el.tag}>`)),
    h(
      'dl',
      { class: 'before-after' },
      h('dt', {}, 'Before'),
      h('dd', {}, text(el.before)),
      h('dt', {}, 'After'),
      h('dd', {}, text(el.after)),
    ),
  );
}

const KIND_WORDS = { added: 'Added', removed: 'Removed', changed: 'Changed' };

function textItem(t) {
  const words =
    t.kind === 'added'
      ? h('ins', {}, t.after ?? '')
      : t.kind === 'removed'
        ? h('del', {}, t.before ?? '')
        : wordDiff(t);
  return h('li', { class: 'tc' }, h('span', { class: `tc-kind ${t.kind}` }, KIND_WORDS[t.kind] ?? t.kind), ' ', words);
}

function ruleItem(rule, m) {
  return h(
    'li',
    { class: 'condition' },
    h('span', { class: `badge ${rule.met ? 'ok' : 'none'}` }, rule.met ? 'true' : 'false'),
    ` Rule ${rule.index + 1}: `,
    h('code', {}, rule.selector),
    ` ${TEST_WORDS[rule.test] ?? rule.test}${ruleValue(rule, m)}`,
  );
}

export function renderRegions(c, m) {
  const regions = c.regions ?? [];
  $('regions').replaceChildren(
    ...regions.map((r, i) => {
      const texts = textsIn(c, r);
      const rules = rulesIn(c, r);
      return h(
        'li',
        { class: 'region', dataset: { index: i } },
        h(
          'button',
          { type: 'button', class: 'region-show', 'aria-pressed': 'false' },
          `Region ${i + 1}: ${boxWords(r)}${typeof r.pixels === 'number' ? `, ${r.pixels.toLocaleString('en')} changed pixels` : ''}`,
        ),
        texts.length
          ? h('ul', { class: 'region-texts', 'aria-label': `Text changes in region ${i + 1}` }, texts.map(textItem))
          : null,
        rules.length
          ? h(
              'ul',
              { class: 'region-rules', 'aria-label': `Notify-when rules in region ${i + 1}` },
              rules.map((rule) => ruleItem(rule, m)),
            )
          : null,
        r.elements?.length
          ? h('ul', { class: 'elements', 'aria-label': `Elements in region ${i + 1}` }, r.elements.map(elementItem))
          : null,
      );
    }),
  );
  $('regions-none').hidden = regions.length > 0;
  $('regions-hint').hidden = regions.length === 0;
  $('regions-none').textContent =
    c.status === 'failed' ? 'None: the capture failed.' : c.baselineId ? 'None.' : 'None: this capture is a baseline.';
}

function selected() {
  const hist = state.history;
  return hist?.captures.find((c) => c.id === hist.selectedId) ?? null;
}

const regionOf = (row) => selected()?.regions?.[Number(row.dataset.index)];

$('regions').addEventListener('mouseover', (event) => {
  const row = event.target.closest('li.region');
  if (row) showOutline(regionOf(row));
});
$('regions').addEventListener('mouseleave', () => {
  if (!$('regions').contains(document.activeElement)) hideOutline();
});
$('regions').addEventListener('focusin', (event) => {
  const row = event.target.closest('li.region');
  if (row) showOutline(regionOf(row));
});
$('regions').addEventListener('focusout', (event) => {
  if (!$('regions').contains(event.relatedTarget)) hideOutline();
});
// A click anywhere on a row selects its region (the keyboard uses the row's button).
$('regions').addEventListener('click', (event) => {
  const row = event.target.closest('li.region');
  if (!row) return;
  selectRegion(Number(row.dataset.index));
  showOutline(regionOf(row));
});
