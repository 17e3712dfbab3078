// What a capture says beyond its images: its text changes (removed text struck through, added text
// underlined, a changed block as its word-level diff), the notifyWhen rules and which were true, and the
// changed regions with the elements, text changes and rules behind each. Pointing at or focusing a region
// (or a text change) outlines its box on the image shown (`outline` is the viewer's signal).
import { html } from '/assets/monitors-app/html.js';
import { RULE_TESTS } from '/assets/monitors-app/format.js';

const KIND_WORDS = { added: 'Added', removed: 'Removed', changed: 'Changed' };
const TEST_WORDS = Object.fromEntries(RULE_TESTS.map(([test, words]) => [test, words]));

const noneWords = (c) =>
  c.status === 'failed'
    ? 'None: the capture failed.'
    : c.status === 'suspect' || c.status === 'filter_missing'
      ? 'None: this capture was not compared.'
      : c.baselineId
        ? 'None.'
        : 'None: this capture is a baseline.';

/** A changed block's words: jsdiff parts, the removed ones in <del>, the added ones in <ins>. */
function WordDiff({ change }) {
  if (Array.isArray(change.words) && change.words.length)
    return change.words.map((part) =>
      part.removed
        ? html`<del>${part.value}</del>`
        : part.added
          ? html`<ins>${part.value}</ins>`
          : String(part.value ?? ''),
    );
  return html`<del>${change.before ?? ''}</del> <ins>${change.after ?? ''}</ins>`;
}

function ChangeWords({ change }) {
  if (change.kind === 'added') return html`<ins>${change.after ?? ''}</ins>`;
  if (change.kind === 'removed') return html`<del>${change.before ?? ''}</del>`;
  return html`<${WordDiff} change=${change} />`;
}

export function TextChanges({ c, outline }) {
  const changes = c.status === 'succeeded' ? (c.textChanges ?? []) : [];
  const more = (c.textChangesTotal ?? changes.length) - changes.length;
  return html`<section class="text-changes" aria-labelledby="text-changes-title">
    <h4 id="text-changes-title">Text changes</h4>
    <p id="text-changes-none" class="muted" hidden=${changes.length > 0}>${noneWords(c)}</p>
    <ol id="text-changes" class="text-changes-list" onMouseLeave=${() => (outline.value = null)}>
      ${changes.map(
        (change, i) =>
          html`<li
            class="tc ${change.kind}"
            data-index=${i}
            onMouseOver=${() => {
              // A removed block's box is where it was in the previous capture, not in the image shown.
              if (change.box && change.kind !== 'removed') outline.value = change.box;
            }}
          >
            <span class="tc-head"
              ><span class="tc-kind ${change.kind}">${KIND_WORDS[change.kind] ?? change.kind}</span>${
                change.selector ? html`<code class="tc-selector">${change.selector}</code>` : null
              }</span
            ><span class="tc-text"><${ChangeWords} change=${change} /></span>
          </li>`,
      )}
    </ol>
    <p id="text-changes-more" class="hint" hidden=${more <= 0}>
      ${more > 0 ? `…and ${more.toLocaleString()} more (a capture keeps the first ${changes.length}).` : ''}
    </p>
  </section>`;
}

/** "below 20", "contains “in stock”": the rule's own value, read from the monitor when it still has that rule. */
function ruleValue(result, m) {
  const rule = ruleAt(m?.notifyWhen, result);
  if (!rule || (rule.selector ?? null) !== (result.selector ?? null)) return '';
  const value = rule[result.test];
  if (value === undefined || value === true) return '';
  if (typeof value === 'number') return ` ${value}`;
  if (Array.isArray(value)) return ` ${value[0]}–${value[1]}`;
  if (typeof value === 'object') return value.percent !== undefined ? ` ${value.percent} %` : ` ${value.amount}`;
  return ` “${value}”`;
}

/** The monitor's rule a result is about: by its path ("1.any.0") when it has one, else its index in a plain list. */
function ruleAt(notifyWhen, result) {
  if (!Array.isArray(notifyWhen)) return undefined;
  if (typeof result.path !== 'string') return notifyWhen[result.index];
  let node = notifyWhen;
  for (const part of result.path.split('.')) node = node?.[part];
  return node;
}

const MetBadge = ({ met }) => html`<span class="badge ${met ? 'ok' : 'none'}">${met ? 'true' : 'false'}</span>`;

export function Conditions({ c, m }) {
  const results = c.conditions ?? [];
  const errors = c.conditionErrors ?? [];
  const met = c.conditionsMet ?? null;
  return html`<section
    id="conditions-section"
    aria-labelledby="conditions-title"
    hidden=${results.length === 0 && errors.length === 0 && met === null}
  >
    <h4 id="conditions-title">Notify-when rules</h4>
    <p id="conditions-met" class="conditions-met">
      ${
        met === null
          ? null
          : html`<span class="badge ${met ? 'ok' : 'none'}" data-met=${String(met)}
                >${met ? 'Rules met' : 'Rules not met'}</span
              >${
                met
                  ? ' Every rule is true and one became true: a change is notified.'
                  : ' Not every rule is true, or none became true: a change is not notified.'
              }`
      }
    </p>
    <ul id="conditions" class="conditions">
      ${results.map(
        (r) =>
          html`<li class="condition" data-met=${String(r.met)}>
            <${MetBadge}
              met=${r.met}
            />${` Rule ${r.index + 1}: `}${r.selector ? html`<code>${r.selector}</code> ` : ''}${`${TEST_WORDS[r.test] ?? r.test}${ruleValue(r, m)}${r.while ? ' (only while true)' : ''}`}<span
              class="hint"
              >${
                r.value === null || r.value === undefined
                  ? ' · nothing matched'
                  : ` · read ${typeof r.value === 'number' ? r.value : `“${r.value}”`}`
              }</span
            >
          </li>`,
      )}
    </ul>
    <div id="condition-errors">
      ${
        errors.length
          ? html`<div class="alert warn">
              Some rules could not be read:
              <ul>
                ${errors.map((e) => html`<li>${e}</li>`)}
              </ul>
            </div>`
          : null
      }
    </div>
  </section>`;
}

// ------------------------------------------------------------------------------------ regions

const boxWords = (r) => `x ${r.x}, y ${r.y}, ${r.width} × ${r.height} px`;
const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

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

function ElementText({ value }) {
  if (value === null || value === undefined) return html`<span class="muted">not there</span>`;
  if (value === '') return html`<span class="muted">no text</span>`;
  return value;
}

function Region({ c, m, r, i, selected, onSelect, outline }) {
  const texts = textsIn(c, r);
  const rules = rulesIn(c, r);
  return html`<li
    class="region${selected ? ' selected' : ''}"
    data-index=${i}
    onMouseOver=${() => (outline.value = r)}
    onFocusIn=${() => (outline.value = r)}
    onClick=${() => {
      // A click anywhere on a row selects its region (the keyboard uses the row's button).
      onSelect(i);
      outline.value = r;
    }}
  >
    <button type="button" class="region-show" aria-pressed=${String(selected)}>
      ${`Region ${i + 1}: ${boxWords(r)}${typeof r.pixels === 'number' ? `, ${r.pixels.toLocaleString('en')} changed pixels` : ''}`}
    </button>
    ${
      texts.length
        ? html`<ul class="region-texts" aria-label=${`Text changes in region ${i + 1}`}>
            ${texts.map(
              (t) =>
                html`<li class="tc">
                  <span class="tc-kind ${t.kind}">${KIND_WORDS[t.kind] ?? t.kind}</span> <${ChangeWords} change=${t} />
                </li>`,
            )}
          </ul>`
        : null
    }
    ${
      rules.length
        ? html`<ul class="region-rules" aria-label=${`Notify-when rules in region ${i + 1}`}>
            ${rules.map(
              (rule) =>
                html`<li class="condition">
                  <${MetBadge}
                    met=${rule.met}
                  />${` Rule ${rule.index + 1}: `}<code>${rule.selector}</code>${` ${TEST_WORDS[rule.test] ?? rule.test}${ruleValue(rule, m)}`}
                </li>`,
            )}
          </ul>`
        : null
    }
    ${
      r.elements?.length
        ? html`<ul class="elements" aria-label=${`Elements in region ${i + 1}`}>
            ${r.elements.map(
              (el) =>
                html`<li class="element">
                  <span class="el-head"><code>${el.selector}</code><span class="hint">${` <${el.tag}>`}</span></span>
                  <dl class="before-after">
                    <dt>Before</dt>
                    <dd><${ElementText} value=${el.before} /></dd>
                    <dt>After</dt>
                    <dd><${ElementText} value=${el.after} /></dd>
                  </dl>
                </li>`,
            )}
          </ul>`
        : null
    }
  </li>`;
}

export function Regions({ c, m, selectedIndex, onSelect, outline }) {
  const regions = c.regions ?? [];
  return html`<div class="regions-pane">
    <h4 id="regions-title">Changed regions</h4>
    <p id="regions-hint" class="hint" hidden=${regions.length === 0}>
      Select a region to see it up close, before and after; the slider and the image below move to it.
    </p>
    <p id="regions-none" class="muted" hidden=${regions.length > 0}>${noneWords(c)}</p>
    <ol
      id="regions"
      class="regions"
      aria-labelledby="regions-title"
      onMouseLeave=${(event) => {
        if (!event.currentTarget.contains(document.activeElement)) outline.value = null;
      }}
      onFocusOut=${(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) outline.value = null;
      }}
    >
      ${regions.map(
        (r, i) =>
          html`<${Region}
            key=${i}
            c=${c}
            m=${m}
            r=${r}
            i=${i}
            selected=${selectedIndex === i}
            onSelect=${onSelect}
            outline=${outline}
          />`,
      )}
    </ol>
  </div>`;
}
