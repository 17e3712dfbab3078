// The variables a channel's templates can use (Liquid: {{ monitor.name }}, {% for c in changes %}…),
// listed beside the template fields. The same list as docs/channels.md; a template that names anything
// else gets nothing (it renders empty).
import { html } from '/assets/monitors-app/html.js';

const VARIABLES = [
  ['event', 'the event: monitor.changed, capture.completed, capture.failed, monitor.filter_missing, channel.test'],
  ['monitor', '.id, .name, .url, .tags'],
  ['capture', '.id, .status, .takenAt, .changed, .diffRatio, .reason'],
  ['summary', 'what changed, in one sentence'],
  ['changes', 'the text changes: each with .kind, .before, .after, .selector'],
  ['changesTotal', 'how many text changes there were'],
  ['price', '.price, .currency, .availability (when the page has them)'],
  ['conditions', 'the alert conditions that held'],
  ['error', 'why a capture failed'],
  ['links', '.capture (the capture in this dashboard), .monitor, .image, .diff'],
  ['alerts, count', 'digests: each alert (with the variables above) and how many'],
];

export function TemplateVariables() {
  return html`<div class="template-vars" id="c-vars">
    <p class="group-title" id="c-vars-title">Variables for the templates</p>
    <dl class="vars" aria-labelledby="c-vars-title">
      ${VARIABLES.map(
        ([name, words]) =>
          html`<div>
            <dt><code>${name}</code></dt>
            <dd>${words}</dd>
          </div>`,
      )}
    </dl>
    <p class="hint">
      E.g. <code>${'{{ monitor.name }}: {{ summary }}'}</code> or${' '}
      <code>${'{% for c in changes %}{{ c.after }}{% endfor %}'}</code>. A template that does not parse is refused with
      the line it fails on. <a href="/docs/channels.md">Templates in the docs</a>
    </p>
  </div>`;
}
