// The values of a monitor's secret fill steps are write-only. A capture reads text from the page after
// the steps ran, and a page can show what was typed (a contenteditable field, a greeting that echoes a
// name, a script that mirrors the field): every appearance is replaced by the mask before the text is
// stored, compared, listed behind a region, tested by a notifyWhen rule or sent in a webhook.
import type { PageFacts } from '../domain/page-facts.js';
import { secretScrubber, type RunStep } from '../render/load/steps.js';

export function hideTypedSecrets(facts: PageFacts, steps: RunStep[]): PageFacts {
  if (!steps.some((s) => s.secret && s.value)) return facts;
  const hide = secretScrubber(steps);
  return {
    ...facts,
    blocks: facts.blocks.map((b) => ({ ...b, text: hide(b.text) })),
    probes: facts.probes.map((p) => (p.text === null ? p : { ...p, text: hide(p.text) })),
    ...(facts.signs && { signs: { ...facts.signs, title: hide(facts.signs.title), text: hide(facts.signs.text) } }),
  };
}
