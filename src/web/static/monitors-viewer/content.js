// What a capture read, in words for its facts: the content's kind and media type ("PDF, 12 pages (read
// 12)", "JSON", "Bytes: SHA-256 …"), a cut said plainly, and the product's price, currency and
// availability with where they were read. And the "Compared text" panel: the capture's text blocks as
// compared (after the monitor's filters), from GET /api/captures/{id}/text.
import { useEffect } from '/assets/vendor/preact-hooks.js';
import { useSignal } from '/assets/vendor/signals.js';
import { ApiError } from '/assets/api.js';
import { html } from '/assets/monitors-app/html.js';
import { useStore } from '/assets/monitors-app/context.js';

const plural = (n, one, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** "PDF, 12 pages (read 12)"… ; null for a capture taken before content kinds were read. */
export function contentWords(content) {
  if (!content) return null;
  const type = content.mediaType ? ` (${content.mediaType})` : '';
  const bytes = typeof content.bytes === 'number' ? `, ${plural(content.bytes, 'byte')}` : '';
  switch (content.kind) {
    case 'pdf':
      return `PDF, ${plural(content.pages ?? 0, 'page')} (read ${(content.pagesRead ?? content.pages ?? 0).toLocaleString('en')})${bytes}`;
    case 'json':
      return `JSON${type}${bytes}`;
    case 'text':
      return `Text${type}${bytes}`;
    case 'binary':
      return `Bytes: SHA-256 ${content.sha256 ?? 'unknown'}${type}${bytes}`;
    default:
      return `Web page${type}`;
  }
}

/** "In stock", "Out of stock", "Pre-order"…: schema.org's short names in words. */
export function availabilityWords(name) {
  const special = { PreOrder: 'Pre-order', BackOrder: 'Back-order', PreSale: 'Pre-sale' };
  if (special[name]) return special[name];
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The price in its currency (Intl.NumberFormat); without a currency, or an unknown one, the number. */
export function priceWords(price, currency) {
  if (currency) {
    try {
      return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(price);
    } catch {
      return `${price.toLocaleString()} ${currency}`;
    }
  }
  return price.toLocaleString();
}

const SOURCE_WORDS = {
  'json-ld': 'the page’s JSON-LD (schema.org)',
  microdata: 'the page’s microdata (schema.org)',
  rdfa: 'the page’s RDFa (schema.org)',
  opengraph: 'the page’s OpenGraph tags',
};

/** The facts a capture adds about what it read: [term, words] pairs. */
export function contentFacts(c, m) {
  const facts = [];
  const content = contentWords(c.content);
  if (content) facts.push(['Content', content]);
  if (c.content?.cut) facts.push(['Cut', `Only part was read: ${c.content.cut}`]);
  const hasPrice = typeof c.price === 'number';
  if (hasPrice || c.availability) {
    const parts = [];
    if (hasPrice) parts.push(priceWords(c.price, c.currency));
    if (c.availability) parts.push(availabilityWords(c.availability));
    const where =
      c.priceSource === 'selector'
        ? `the page’s elements${m?.diff?.priceSelector ? ` (${m.diff.priceSelector})` : ''}`
        : SOURCE_WORDS[c.priceSource];
    facts.push(['Product', `${parts.join(' · ')}${where ? `, read from ${where}` : ''}`]);
  }
  return facts;
}

/** The capture's compared text, block by block (what the next capture's text is compared with). */
export function ComparedText({ c }) {
  const store = useStore();
  const blocks = useSignal(null);
  const problem = useSignal('');
  const hasText = c.status !== 'failed';
  useEffect(() => {
    blocks.value = null;
    problem.value = '';
    if (!hasText) return;
    let current = true;
    store
      .json('GET', `/api/captures/${encodeURIComponent(c.id)}/text`)
      .then((body) => {
        if (current) blocks.value = body.blocks ?? [];
      })
      .catch((err) => {
        if (!current) return;
        if (err instanceof ApiError && err.status === 401) return store.handleError(err);
        problem.value =
          err instanceof ApiError && err.status === 404
            ? 'This capture kept no text (it was taken before text was kept, or is no longer kept).'
            : `The text could not be loaded. ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`;
      });
    return () => {
      current = false;
    };
  }, [c.id]);
  if (!hasText) return null;
  const list = blocks.value ?? [];
  return html`<section id="compared-text" class="compared-text" aria-labelledby="compared-text-title">
    <h4 id="compared-text-title">Compared text</h4>
    <p class="hint" id="compared-text-hint">
      The capture’s text after this monitor’s filters, block by block: what is compared with the next capture.
    </p>
    ${
      problem.value
        ? html`<p class="muted" id="compared-text-problem">${problem.value}</p>`
        : blocks.value === null
          ? html`<p class="muted">Loading the text…</p>`
          : list.length === 0
            ? html`<p class="muted" id="compared-text-none">
                ${
                  c.content?.kind === 'binary'
                    ? 'No text: these bytes are compared by their SHA-256.'
                    : 'No text: the filters kept nothing.'
                }
              </p>`
            : html`<details id="compared-text-details" open=${list.length <= 30}>
                <summary>${plural(list.length, 'block')}</summary>
                <div class="compared-scroll" tabindex="0" role="region" aria-label="The compared text, block by block">
                  <ol class="compared-blocks" id="compared-blocks">
                    ${list.map(
                      (b) =>
                        html`<li class="compared-block">
                          <code class="tc-selector">${b.selector}</code
                          ><span class="compared-block-text">${b.text}</span>
                        </li>`,
                    )}
                  </ol>
                </div>
              </details>`
    }
  </section>`;
}
