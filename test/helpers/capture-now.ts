// Run a monitor now and wait for the capture it records (a newer one than `before`), through the API.
import { expect } from 'vitest';
import type { TestService } from './service.js';
import { until } from './until.js';

export interface CaptureSummary {
  id: string;
  status: string;
  width: number | null;
  height: number | null;
  error?: { code: string; message: string };
}

export async function captureNow(
  service: TestService,
  key: string,
  id: string,
  before?: string,
): Promise<CaptureSummary> {
  expect((await service.call('POST', `/api/monitors/${id}/run`, key)).status).toBe(202);
  return until(
    'a new capture',
    async () => {
      const list = (await (await service.call('GET', `/api/monitors/${id}/captures?limit=1`, key)).json()) as {
        items: CaptureSummary[];
      };
      return list.items[0] && list.items[0].id !== before ? list.items[0] : undefined;
    },
    60_000,
    100,
  );
}
