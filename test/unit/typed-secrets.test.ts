// Hiding what a secret step typed from the page's text must leave the rest of what the capture read alone:
// the product, the main document's status and the missing filters.
import { describe, expect, it } from 'vitest';
import type { PageFacts } from '../../src/domain/page-facts.js';
import { hideTypedSecrets } from '../../src/monitors/typed-secrets.js';

describe('hideTypedSecrets', () => {
  it('masks the secret in blocks and probes and keeps every other fact', () => {
    const facts: PageFacts = {
      blocks: [{ selector: 'p', tag: 'p', text: 'Hello hunter2', box: { x: 0, y: 0, width: 1, height: 1 } }],
      probes: [{ selector: 'p', found: true, text: 'hunter2!', lang: null }],
      status: 200,
      product: { price: 19.99, currency: 'USD', availability: 'InStock', source: 'json-ld' },
      missingFilters: [1],
    };
    const hidden = hideTypedSecrets(facts, [{ action: 'fill', selector: '#pw', value: 'hunter2', secret: true }]);
    expect(hidden.blocks[0]!.text).toBe('Hello ••••');
    expect(hidden.probes[0]!.text).toBe('••••!');
    expect(hidden).toMatchObject({ status: 200, product: facts.product, missingFilters: [1] });
  });
});
