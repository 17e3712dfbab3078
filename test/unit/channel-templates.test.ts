// Channel templates (src/channels/templates.ts): Liquid that reads its variables and nothing else, and that
// stops at its limits. The attacks are written as a user could send them in a channel's templates.
import { describe, expect, it } from 'vitest';
import {
  checkTemplate,
  MAX_OUTPUT_CHARS,
  MAX_TEMPLATE_CHARS,
  renderTemplate,
  TemplateError,
} from '../../src/channels/templates.js';

const vars = {
  event: 'monitor.changed',
  monitor: { id: 'mon_1', name: 'Pricing', url: 'https://shop.example/p', tags: ['shop'] },
  summary: 'Price: $24.99 → $19.99',
  changes: [{ kind: 'changed', before: '$24.99', after: '$19.99', selector: 'p.price' }],
};

describe('checkTemplate', () => {
  it('accepts a template that parses', () => {
    expect(checkTemplate('{{ monitor.name }}: {% for c in changes %}{{ c.after }}{% endfor %}')).toBeUndefined();
  });

  it('names the line of an unclosed tag, an unknown tag and an unknown filter', () => {
    expect(checkTemplate('one\ntwo\n{% if summary %}open')).toEqual({
      line: 3,
      message: 'tag {% if summary %} not closed',
    });
    expect(checkTemplate('a\n{% exec "ls" %}')).toEqual({ line: 2, message: 'tag "exec" not found' });
    expect(checkTemplate('a\nb\nc\n{{ summary | shell }}')).toEqual({ line: 4, message: 'undefined filter: shell' });
  });

  it('refuses include, render and layout when parsed: no template reads a file', () => {
    for (const tag of [
      "{% include '/etc/passwd' %}",
      "{% render 'x' %}",
      "{% layout 'x' %}{% block a %}{% endblock %}",
    ]) {
      const problem = checkTemplate(`hello\n${tag}`);
      expect(problem?.line, tag).toBe(2);
      expect(problem?.message, tag).toMatch(/is not available in channel templates/);
    }
  });

  it('takes MAX_TEMPLATE_CHARS characters, not one more', () => {
    expect(checkTemplate('x'.repeat(MAX_TEMPLATE_CHARS))).toBeUndefined();
    expect(checkTemplate('x'.repeat(MAX_TEMPLATE_CHARS + 1))).toEqual({
      line: 1,
      message: `the template is longer than ${MAX_TEMPLATE_CHARS} characters`,
    });
  });
});

describe('renderTemplate', () => {
  it('renders the variables', async () => {
    expect(await renderTemplate('body', '{{ monitor.name }} — {{ summary }} ({{ changes[0].selector }})', vars)).toBe(
      'Pricing — Price: $24.99 → $19.99 (p.price)',
    );
  });

  it('renders empty what lies outside the variables: prototypes, constructors, functions', async () => {
    const attacks = [
      '{{ constructor }}',
      '{{ constructor.constructor }}',
      '{{ monitor.__proto__ }}',
      '{{ monitor.constructor }}',
      "{{ monitor['__proto__'] }}",
      '{{ monitor.constructor.name }}',
      '{{ monitor.hasOwnProperty }}',
      '{{ monitor.toString }}',
      '{{ changes.constructor }}',
      '{{ summary.constructor }}',
      '{{ process }}',
      '{{ global.process.env }}',
      '{{ require }}',
      '{{ this }}',
    ];
    for (const attack of attacks) expect(await renderTemplate('body', attack, vars), attack).toBe('');
  });

  it('reads no file: include fails as a template error, never the file', async () => {
    await expect(renderTemplate('body', "{% include '/etc/passwd' %}", vars)).rejects.toThrow(
      /body template: line 1: \{% include %\} is not available/,
    );
  });

  it('stops a huge range and a doubling string at the memory limit', async () => {
    await expect(renderTemplate('body', '{% for i in (1..100000000) %}x{% endfor %}', vars)).rejects.toThrow(
      TemplateError,
    );
    const doubling =
      "{% assign s = 'xxxxxxxxxx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s.size }}";
    await expect(renderTemplate('body', doubling, vars)).rejects.toThrow(/memory alloc limit exceeded/);
  });

  it('stops loops of loops at the render time limit', async () => {
    const nested =
      '{% for a in (1..300) %}{% for b in (1..300) %}{% for c in (1..300) %}{% endfor %}{% endfor %}{% endfor %}';
    await expect(renderTemplate('body', nested, vars)).rejects.toThrow(TemplateError);
  });

  it('gives MAX_OUTPUT_CHARS characters of output, and fails at one more', async () => {
    const exactly = `{% for i in (1..${MAX_OUTPUT_CHARS / 64}) %}${'y'.repeat(64)}{% endfor %}`;
    expect((await renderTemplate('body', exactly, vars)).length).toBe(MAX_OUTPUT_CHARS);
    await expect(renderTemplate('body', `${exactly}z`, vars)).rejects.toThrow(
      `body template: its output is longer than ${MAX_OUTPUT_CHARS} characters`,
    );
  });

  it('sees data only: a function among the values renders empty and is never called', async () => {
    let called = false;
    const values = { fn: () => ((called = true), 'ran'), monitor: { name: 'x' } };
    expect(await renderTemplate('body', '[{{ fn }}][{{ fn.call }}]{{ monitor.name }}', values)).toBe('[][]x');
    expect(called).toBe(false);
  });
});
