// A capture's rule results as the API shows them: results recorded before groups existed have no path
// stored and show path = index (they were all top-level rules); new results show theirs.
import { describe, expect, it } from 'vitest';
import { captureView } from '../../src/monitors/view.js';
import type { CaptureRecord } from '../../src/stores/captures.js';
import { capture } from '../contract/monitor-fixtures.js';

describe('captureView: conditions', () => {
  it('fills the path of old results from their index and keeps new ones as recorded', () => {
    const record = {
      ...capture('cap_1', 'mon_1', '2026-01-01T00:00:00.000Z', {
        conditions: [
          { index: 0, selector: '.price', test: 'numberBelow', met: true, value: 12 },
          { index: 1, selector: '.stock', test: 'appears', met: false, value: null },
          { index: 2, path: '2.any.0', selector: null, test: 'priceBelow', met: true, value: 9.5, while: true },
        ],
      }),
      createdAt: '2026-01-01T00:00:00.000Z',
    } as CaptureRecord;
    expect(captureView(record, 'http://x').conditions).toEqual([
      { index: 0, path: '0', selector: '.price', test: 'numberBelow', met: true, value: 12 },
      { index: 1, path: '1', selector: '.stock', test: 'appears', met: false, value: null },
      { index: 2, path: '2.any.0', selector: null, test: 'priceBelow', met: true, value: 9.5, while: true },
    ]);
  });
});
