// A Chromium that cannot be started does not stop the service: it answers, says it is not ready, and
// renders fail with 503 unavailable (the contract's code for it), not as a bad page or a bug.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

describe('no usable browser', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ chromiumPath: '/nonexistent/chromium' });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('health is 200, ready is 503 naming the browser, and renders are 503 unavailable', async () => {
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    const ready = await fetch(`${service.url}/ready`);
    expect(ready.status).toBe(503);
    expect((await errorOf(ready)).details).toEqual([{ path: 'browser', message: 'not usable' }]);
    for (const path of ['/api/pdf', '/api/image']) {
      const res = await service.post(path, { html: '<p>x</p>' });
      expect(res.status).toBe(503);
      expect((await errorOf(res)).code).toBe('unavailable');
    }
  });
});
