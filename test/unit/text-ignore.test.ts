// diff.ignoreText patterns: which the schema refuses and why, and how matches are blanked.
import { describe, expect, it } from 'vitest';
import { blankIgnored, compileIgnoreText, ignoreTextProblem } from '../../src/diff/text/ignore-text.js';

describe('ignoreTextProblem', () => {
  it('accepts ordinary patterns', () => {
    for (const p of ['\\d{4}-\\d{2}-\\d{2}', 'Updated .* ago', '[0-9]+ visitors', '(Mon|Tue|Wed)day'])
      expect(ignoreTextProblem(p), p).toBeNull();
  });
  it('refuses what does not compile and what matches the empty string', () => {
    expect(ignoreTextProblem('(')).toMatch(/^not a valid regular expression: /);
    expect(ignoreTextProblem('a{2,1}')).toMatch(/^not a valid regular expression: /);
    expect(ignoreTextProblem('\\d*')).toMatch(/matches the empty string/);
    expect(ignoreTextProblem('^')).toMatch(/matches the empty string/);
  });

  it('accepts what would backtrack on V8, and answers at once (RE2 runs it in linear time)', () => {
    const started = performance.now();
    for (const p of ['(a+)+b', '(\\w+\\s?)*x', '(a|aa)*b', '(?:a?|b?){27}\\b'])
      expect(ignoreTextProblem(p), p).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
    const [pattern] = compileIgnoreText(['(a+)+b']);
    const text = `${'a'.repeat(100_000)}!`;
    const t0 = performance.now();
    expect(blankIgnored(text, [pattern!])).toBe(text);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it.each([
    ['(?=a)b', 'a lookahead "(?="'],
    ['a(?!b)', 'a negative lookahead "(?!"'],
    ['(?<=\\$)\\d+', 'a lookbehind "(?<="'],
    ['(?<!-)\\d+', 'a negative lookbehind "(?<!"'],
    ['(a)\\1', 'a backreference "\\1"'],
    ['(?<n>a)\\k<n>', 'a named backreference "\\k<…>"'],
  ])('refuses %s, naming what RE2 does not support', (pattern, what) => {
    expect(ignoreTextProblem(pattern)).toBe(
      `uses ${what}, which is not supported: patterns run on RE2, which matches in linear time and has no ` +
        'lookahead, lookbehind or backreferences; rewrite it without',
    );
  });

  it('takes lookaround and backreference characters inside a class or escaped as plain characters', () => {
    for (const p of ['[(?=]x', '\\(?=x', '\\\\1', 'a\\u00e9']) expect(ignoreTextProblem(p), p).toBeNull();
  });
});

describe('blankIgnored', () => {
  it('removes every match of every pattern and collapses the whitespace left', () => {
    const patterns = compileIgnoreText(['\\d{4}-\\d{2}-\\d{2}', '\\d+ visitors']);
    expect(blankIgnored('On 2026-11-23 and 2026-11-24 we had 12 visitors today', patterns)).toBe('On and we had today');
    expect(blankIgnored('2026-11-23', patterns)).toBe('');
    expect(blankIgnored('Nothing here', [])).toBe('Nothing here');
  });
  it('a plain string ignores case (issue 27); flags "" is case-sensitive; patterns can be used again (no lastIndex)', () => {
    const patterns = compileIgnoreText(['Date']);
    expect(blankIgnored('date Date x', patterns)).toBe('x');
    expect(blankIgnored('DATE y', patterns)).toBe('y');
    const exact = compileIgnoreText([{ pattern: 'Date', flags: '' }]);
    expect(blankIgnored('date Date', exact)).toBe('date');
    expect(blankIgnored('Date x', exact)).toBe('x');
  });
});
