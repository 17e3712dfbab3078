// The README's configuration table is what operators read; it must name every setting there is.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSettings } from '../../src/config.js';

describe('README', () => {
  const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

  it.each(describeSettings().map((s) => [s.path, s.env]))('documents %s (%s)', (path, env) => {
    expect(readme).toContain(`| \`${path}\` | \`${env}\` |`);
  });

  it('gives the two quick-start commands', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});
