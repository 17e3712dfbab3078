// Channel templates: Liquid (liquidjs), logic-light and sandboxed. A template reads only the variables it
// is given (own properties: no prototype, no constructor), reaches no file (include, render and layout are
// refused when the template is parsed; the engine's template store is an empty in-memory map besides), and
// is bounded in source length, parse size, render time, memory and output length. A template that goes
// over a bound fails with a TemplateError that says which; one that reads outside its variables gets "".
import { Liquid, Tag, type TagToken, type TopLevelToken, type Context, type Emitter } from 'liquidjs';

/** Longest template source, in characters (the channel API refuses longer ones, naming the field). */
export const MAX_TEMPLATE_CHARS = 10_000;
/** Longest rendered output, in characters: more fails the attempt. */
export const MAX_OUTPUT_CHARS = 65_536;
/** Render time, ms: a loop of loops stops here. */
export const RENDER_LIMIT_MS = 500;
/** liquidjs's allocation budget (characters of strings built by filters, items of ranges and arrays). */
export const MEMORY_LIMIT = 1_000_000;

export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** Tags that would read another template (a file): refused when parsed, so a bad template is a 400. */
const FILE_TAGS = ['include', 'render', 'layout'] as const;

function refusedTag(name: string) {
  return class extends Tag {
    constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
      super(token, remain, liquid);
      throw new Error(`{% ${name} %} is not available in channel templates`);
    }
    *render(_ctx: Context, _emitter: Emitter): Generator<unknown, void, unknown> {
      // never reached: the constructor refuses
    }
  };
}

function newEngine(): Liquid {
  const engine = new Liquid({
    // An empty in-memory store: even a tag that looked a template up would find nothing on disk.
    templates: {},
    relativeReference: false,
    dynamicPartials: false,
    ownPropertyOnly: true,
    strictFilters: true,
    strictVariables: false,
    cache: false,
    parseLimit: MAX_TEMPLATE_CHARS,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
  });
  for (const name of FILE_TAGS) engine.registerTag(name, refusedTag(name));
  return engine;
}

const engine = newEngine();

/** liquidjs says "…, line:3, col:5"; we say "line 3: …". */
function describe(err: unknown): { line: number; message: string } {
  const e = err as { message?: string; token?: { getPosition?: () => [number, number] }; originalError?: Error };
  const position = e.token?.getPosition?.();
  const line = position?.[0] ?? 1;
  const raw = e.originalError?.message ?? e.message ?? String(err);
  const message = raw.replace(/,? line:\d+, col:\d+$/, '');
  return { line, message };
}

/** Where a template goes wrong when parsed, or undefined when it parses. */
export function checkTemplate(source: string): { line: number; message: string } | undefined {
  if (source.length > MAX_TEMPLATE_CHARS)
    return { line: 1, message: `the template is longer than ${MAX_TEMPLATE_CHARS} characters` };
  try {
    engine.parse(source);
    return undefined;
  } catch (err) {
    return describe(err);
  }
}

/**
 * Render `source` with `variables`. Values are copied to plain JSON first, so a template sees data only
 * (never a function, class instance or prototype). Throws TemplateError naming `what` and the reason.
 */
export async function renderTemplate(
  what: string,
  source: string,
  variables: Record<string, unknown>,
): Promise<string> {
  const problem = checkTemplate(source);
  if (problem) throw new TemplateError(`${what} template: line ${problem.line}: ${problem.message}`);
  const scope = JSON.parse(JSON.stringify(variables)) as Record<string, unknown>;
  let output: string;
  try {
    output = String(await engine.parseAndRender(source, scope));
  } catch (err) {
    const { line, message } = describe(err);
    throw new TemplateError(`${what} template: line ${line}: ${message}`);
  }
  if (output.length > MAX_OUTPUT_CHARS)
    throw new TemplateError(`${what} template: its output is longer than ${MAX_OUTPUT_CHARS} characters`);
  return output;
}
