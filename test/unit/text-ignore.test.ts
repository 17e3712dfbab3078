// diff.ignoreText patterns: which the schema refuses and why, and how matches are blanked.
import { describe, expect, it } from 'vitest';
import { blankIgnored, compileIgnoreText, ignoreTextProblem } from '../../src/monitors/ignore-text.js';

describe('ignoreTextProblem', () => {
  it('accepts ordinary patterns', () => {
    for (const p of ['\\d{4}-\\d{2}-\\d{2}', 'Updated .* ago', '[0-9]+ visitors', '(Mon|Tue|Wed)day'])
      expect(ignoreTextProblem(p), p).toBeNull();
  });
  it('refuses what does not compile, what matches the empty string, and nested quantifiers', () => {
    expect(ignoreTextProblem('(')).toMatch(/^not a valid regular expression: /);
    expect(ignoreTextProblem('a{2,1}')).toMatch(/^not a valid regular expression: /);
    expect(ignoreTextProblem('\\d*')).toMatch(/matches the empty string/);
    expect(ignoreTextProblem('^')).toMatch(/matches the empty string/);
    expect(ignoreTextProblem('(a+)+b')).toMatch(/exponential/);
    expect(ignoreTextProblem('(\\w+\\s?)*x')).toMatch(/exponential/);
  });
});

describe('blankIgnored', () => {
  it('removes every match of every pattern and collapses the whitespace left', () => {
    const patterns = compileIgnoreText(['\\d{4}-\\d{2}-\\d{2}', '\\d+ visitors']);
    expect(blankIgnored('On 2026-11-23 and 2026-11-24 we had 12 visitors today', patterns)).toBe('On and we had today');
    expect(blankIgnored('2026-11-23', patterns)).toBe('');
    expect(blankIgnored('Nothing here', [])).toBe('Nothing here');
  });
  it('is case-sensitive, and the same pattern objects can be used again (no lastIndex carried over)', () => {
    const patterns = compileIgnoreText(['Date']);
    expect(blankIgnored('date Date', patterns)).toBe('date');
    expect(blankIgnored('Date x', patterns)).toBe('x');
  });
});
