// axe-core in a real page: the audit every e2e test runs on each state a user sees (WCAG 2.0/2.1/2.2 A and
// AA, plus axe's best practices). Open the page with `bypassCSP: true`: the pages' CSP refuses the
// injected script, as it should.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** The two widths every page is checked at: a laptop and a phone. */
export const VIEWPORTS = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

/** axe's violations on the page as it is now, one line each with the elements concerned. */
export async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(
    (tags) =>
      (
        window as unknown as {
          axe: {
            run(
              ctx: Document,
              o: object,
            ): Promise<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }>;
          };
        }
      ).axe.run(document, { runOnly: tags }),
    RULES,
  );
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
