// The values of a monitor's secret fill steps are write-only. A capture reads text from the page after
// the steps ran, and a page can show what was typed (a contenteditable field, a greeting that echoes a
// name, a script that mirrors the field): every appearance is replaced by the mask before the text is
// stored, compared, listed behind a region, tested by a notifyWhen rule or sent in a webhook.
import type { PageFacts } from '../render/page-facts.js';
import type { RunStep } from '../render/steps.js';
import { MASK } from './capture-secrets.js';

/** The forms a secret can take in collapsed page text: as typed, and with its whitespace collapsed. */
function secretForms(steps: RunStep[]): string[] {
  const forms = new Set<string>();
  for (const step of steps) {
    if (!step.secret || !step.value) continue;
    forms.add(step.value);
    const collapsed = step.value.replace(/\s+/g, ' ').trim();
    if (collapsed) forms.add(collapsed);
  }
  // Longest first, so a secret inside another is hidden whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

export function hideTypedSecrets(facts: PageFacts, steps: RunStep[]): PageFacts {
  const forms = secretForms(steps);
  if (forms.length === 0) return facts;
  const hide = (text: string) => forms.reduce((out, secret) => out.split(secret).join(MASK), text);
  return {
    blocks: facts.blocks.map((b) => ({ ...b, text: hide(b.text) })),
    probes: facts.probes.map((p) => (p.text === null ? p : { ...p, text: hide(p.text) })),
  };
}
