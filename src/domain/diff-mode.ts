// diff.mode: what counts as a change. The HTTP schema (src/http/schemas/monitors.ts) takes its values from here.

export const DIFF_MODES = ['visual', 'text', 'both'] as const;
export type DiffMode = (typeof DIFF_MODES)[number];

/** "visual": the pixels decide (text explains); "text": only the text does; "both": either one. */
export function isChange(mode: DiffMode, visual: boolean, text: boolean): boolean {
  if (mode === 'text') return text;
  if (mode === 'both') return visual || text;
  return visual;
}
