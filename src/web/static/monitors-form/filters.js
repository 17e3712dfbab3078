// The form's diff.filters: one row per filter, in order (the order is the filters' order, so rows move up
// and down), each a kind, its value (none for the kinds that are just `true`) and, for extract, its flags.
// An API problem `diff.filters.2` or `diff.filters.2.xpath` is shown beside filter 3.
import { html } from '/assets/monitors-app/html.js';
import { Cell, EditList, invalidProps, setRow } from '/assets/monitors-form/lists.js';
import { PickButton } from '/assets/monitors-form/picker.js';

/** [kind, words, the value's example (null: the kind takes no value, it is `true`)]. */
export const FILTER_KINDS = [
  ['css', 'CSS include', 'e.g. main .price'],
  ['xpath', 'XPath include', 'e.g. //table[@id="prices"]'],
  ['jsonPath', 'JSONPath', 'e.g. $.items[*].price'],
  ['remove', 'Remove (CSS)', 'e.g. .ad'],
  ['extract', 'Extract (regex)', 'e.g. \\d+\\.\\d{2}'],
  ['unique', 'Unique lines', null],
  ['sort', 'Sort lines', null],
  ['dropBlank', 'Drop blank lines', null],
  ['ignoreCase', 'Ignore case', null],
  ['ignoreWhitespace', 'Ignore whitespace', null],
];
const EXAMPLE = Object.fromEntries(FILTER_KINDS.map(([kind, , example]) => [kind, example]));
/** The kinds whose value is a CSS selector: the visual picker can fill them. */
const PICKABLE = new Set(['css', 'remove']);

export const filterRows = (m) =>
  (m?.diff?.filters ?? []).map((filter) => {
    const kind = FILTER_KINDS.find(([k]) => filter[k] !== undefined)?.[0] ?? 'css';
    return {
      kind,
      value: EXAMPLE[kind] === null ? '' : String(filter[kind]),
      flags: filter.flags ?? '',
      flagsSet: filter.flags !== undefined,
    };
  });

export function readFilters(model) {
  return model.filters.value.map((row) => {
    if (EXAMPLE[row.kind] === null) return { [row.kind]: true };
    const filter = { [row.kind]: row.kind === 'extract' ? row.value : row.value.trim() };
    if (row.kind === 'extract' && (row.flags.trim() || row.flagsSet)) filter.flags = row.flags.trim();
    return filter;
  });
}

export function filterProblems(model) {
  const problems = [];
  model.filters.value.forEach((row, i) => {
    if (EXAMPLE[row.kind] !== null && !row.value.trim())
      problems.push({ path: `diff.filters.${i}.${row.kind}`, message: 'Enter what this filter keeps, or remove it.' });
  });
  return problems;
}

/** `diff.filters.2.flags` → filter 3's flags; `diff.filters.2(.xpath)` → its value (or its kind); the list. */
export function filterFieldOf(model, path) {
  const match = /^diff\.filters(?:\.(\d+)(?:\.([^.]+))?)?/.exec(path);
  if (!match) return null;
  const row = match[1] !== undefined && model.filters.value[Number(match[1])];
  if (!row) return ['f-filters-add', 'f-filters-error'];
  const id = (part) => [`f-filter-${row.n}-${part}`, `f-filter-${row.n}-${part}-error`];
  if (match[2] === 'flags') return id('flags');
  return EXAMPLE[row.kind] === null || (match[2] && match[2] !== row.kind) ? id('kind') : id('value');
}

function FilterRow({ model, row, i, update, children }) {
  const example = EXAMPLE[row.kind];
  const id = (part) => `f-filter-${row.n}-${part}`;
  return html`<fieldset>
    <legend>Filter ${i + 1}</legend>
    <div class="cells">
      <${Cell} model=${model} label="Kind" id=${id('kind')}>
        <select
          class="kind"
          value=${row.kind}
          onChange=${(event) => {
            const kind = event.currentTarget.value;
            update(EXAMPLE[kind] === null ? { kind, value: '', flags: '' } : { kind });
          }}
          ...${invalidProps(model, id('kind'))}
        >
          ${FILTER_KINDS.map(([kind, words]) => html`<option value=${kind}>${words}</option>`)}
        </select>
      <//>
      <${Cell} model=${model} label="Value" id=${id('value')} grow>
        <div class="with-pick">
          <input
            type="text"
            class="mono value"
            maxlength="2000"
            spellcheck="false"
            autocomplete="off"
            disabled=${example === null}
            placeholder=${example ?? 'no value'}
            value=${row.value}
            onInput=${(event) => update({ value: event.currentTarget.value })}
            ...${invalidProps(model, id('value'))}
          />
          ${
            PICKABLE.has(row.kind)
              ? html`<${PickButton}
                  model=${model}
                  target=${id('value')}
                  name=${`filter ${i + 1}`}
                  apply=${(selector) => setRow(model, 'filters', row.n, { value: selector })}
                />`
              : null
          }
        </div>
      <//>
      <${Cell} model=${model} label="Flags" id=${id('flags')}>
        <input
          type="text"
          class="mono flags"
          maxlength="3"
          spellcheck="false"
          autocomplete="off"
          disabled=${row.kind !== 'extract'}
          placeholder=${row.kind === 'extract' ? 'e.g. i (any of i, m, s)' : 'no flags: extract only'}
          value=${row.flags}
          onInput=${(event) => update({ flags: event.currentTarget.value })}
          ...${invalidProps(model, id('flags'))}
        />
      <//>
      ${children}
    </div>
  </fieldset>`;
}

export const FilterList = ({ model }) =>
  html`<${EditList}
    model=${model}
    name="filters"
    listId="f-filters-list"
    listClass="edit-list filters"
    addId="f-filters-add"
    errorId="f-filters-error"
    noun="filter"
    addWords="Add filter"
    blank=${{ kind: 'css', value: '', flags: '', flagsSet: false }}
    Row=${FilterRow}
    movable
  />`;
