// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every line
// must be a comment, a # HELP / # TYPE line, or a sample `name{labels} value`; anything else throws.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;
const TYPE = new RegExp(`^# TYPE (${NAME}) (\\w+)$`);
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheus(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    const fail = (why: string) => {
      throw new Error(`line ${i + 1}: ${why}: ${line}`);
    };
    if (line.startsWith('# TYPE ')) {
      const t = TYPE.exec(line);
      if (!t || !TYPES.has(t[2]!)) return fail('bad TYPE');
      types.set(t[1]!, t[2]!);
      return;
    }
    if (line.startsWith('#')) return; // HELP and comments
    const m = SAMPLE.exec(line);
    if (!m) return fail('not a sample');
    const labels: Record<string, string> = {};
    if (m[2]) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < m[2].length) {
        const l = LABEL.exec(m[2]);
        if (!l) return fail('bad labels');
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      }
    }
    // Go's ParseFloat (Prometheus's parser) takes NaN and Inf in any case; prom-client writes "Nan".
    const special = { nan: NaN, '+inf': Infinity, inf: Infinity, '-inf': -Infinity } as Record<string, number>;
    const raw = m[3]!.toLowerCase();
    const value = raw in special ? special[raw]! : Number(m[3]);
    if (Number.isNaN(value) && raw !== 'nan') fail('bad value');
    samples.push({ name: m[1]!, labels, value });
  });
  return { types, samples };
}

/** The value of one sample with exactly these labels (among others), or undefined. */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  return e.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
