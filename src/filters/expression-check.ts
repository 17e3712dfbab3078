// Whether an XPath or a JSONPath of diff.filters can be used, checked when a monitor is saved so that a
// broken one is a 400 naming the filter rather than a failed capture every run. XPath is parsed by the
// `xpath` package's XPath 1.0 parser (the browser evaluates it; only its syntax is checked here).
// JSONPath is parsed the way jsonpath-plus will run it, filter expressions included: they run on its
// safe evaluator (a small expression language, no JavaScript), see json-path.ts.
import xpath from 'xpath';
import { JSONPath } from 'jsonpath-plus';

/** The package's parser (exported, though its type declarations leave it out): throws on a syntax error. */
const parseXpath = (xpath as unknown as { parse: (expression: string) => unknown }).parse;

/** Why an XPath 1.0 expression cannot be used, or null. */
export function xpathProblem(expression: string): string | null {
  try {
    parseXpath(expression);
    return null;
  } catch (err) {
    return `not a valid XPath 1.0 expression (${(err as Error).message})`;
  }
}

/** A filter `?(…)` or script `(…)` segment of a JSONPath: the expression inside, else null. */
function scriptOf(segment: string): string | null {
  const match = /^\??\((.*)\)$/s.exec(segment);
  return match ? match[1]! : null;
}

/** jsonpath-plus's safe evaluator (parses the expression with jsep when constructed). */
const SafeScript = (JSONPath.prototype as unknown as { safeVm: { Script: new (code: string) => unknown } }).safeVm
  .Script;

/** Why a JSONPath cannot be used, or null. */
export function jsonPathProblem(expression: string): string | null {
  if (!expression.startsWith('$')) return 'a JSONPath starts with "$" (the document)';
  if (!balanced(expression)) return 'not a valid JSONPath: its brackets or quotes do not pair up';
  let segments: string[];
  try {
    segments = JSONPath.toPathArray(expression);
  } catch (err) {
    return `not a valid JSONPath (${(err as Error).message})`;
  }
  for (const segment of segments) {
    const script = scriptOf(String(segment));
    if (script === null) continue;
    try {
      // As jsonpath-plus rewrites it before evaluating: @ is the current value.
      new SafeScript(
        script.replaceAll(/@([.\s)[]|$)/gu, '_$_v$1').replaceAll(/@(root|parent|property|path)/gu, '_$_$1'),
      );
    } catch (err) {
      return `not a valid JSONPath filter expression "${script}" (${(err as Error).message})`;
    }
  }
  return null;
}

/** Brackets and parentheses pair up, outside quoted names (jsonpath-plus silently reads "$.a[*" as "$.a.*"). */
function balanced(expression: string): boolean {
  const open: string[] = [];
  let quote: string | null = null;
  for (let i = 0; i < expression.length; i++) {
    const ch = expression[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '[' || ch === '(') open.push(ch === '[' ? ']' : ')');
    else if ((ch === ']' || ch === ')') && open.pop() !== ch) return false;
  }
  return open.length === 0 && quote === null;
}
