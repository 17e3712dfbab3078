// The variables a channel's templates can use (Liquid: {{ monitor.name }}, {% for c in changes %}…),
// listed beside the template fields. The same list as docs/channels.md ("Variables"); a template that names anything
// else gets nothing (it renders empty).
import { html } from '/assets/monitors-app/html.js';

const VARIABLES = [
  ['event', 'monitor.changed, capture.completed, capture.failed, monitor.filter_missing, channel.test; digest'],
  ['verdict', 'the one-line verdict'],
  ['timestamp', 'when the event was recorded'],
  ['monitor', '.id, .name, .url, .tags'],
  ['capture', '.id, .status, .takenAt, .changed, .diffRatio, .reason'],
  ['summary', 'one line such as “Price: $24.99 → $19.99”'],
  ['changes', 'the text changes: each with .kind, .before, .after, .selector'],
  ['changesTotal', 'how many text changes there were'],
  ['price', '.price, .currency, .availability (when the capture read them)'],
  ['conditions', 'the notifyWhen rules and whether each was met'],
  ['error', '.code, .message of a failure'],
  ['links', '.capture and .monitor (in this dashboard), .image, .diff'],
  ['data', 'the event’s whole data, as the webhook gets it'],
  ['alerts, count', 'every alert of the message (a digest has several) and how many'],
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
      E.g. <code>${'{{ monitor.name }}: {{ summary | default: verdict }}'}</code> or${' '}
      <code>${'{% for c in changes %}{{ c.after }}{% endfor %}'}</code>. A template that does not parse is refused with
      the line it fails on. <a href="/docs/channels.md#templates">Templates in the docs</a>
    </p>
  </div>`;
}
