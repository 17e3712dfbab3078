// The database clock: this node's time plus the offset to the database's, measured with half the round
// trip taken off, and kept when a later reading fails.
import { expect, it } from 'vitest';
import { DatabaseClock } from '../../src/operations/database-clock.js';
import { createLogger } from '../../src/log.js';

const log = createLogger('silent');
const SKEW_MS = -300_000;

/** A database whose clock is `skewMs` off this machine's, answering after `delayMs` each way. */
function database(skewMs: number, delayMs: number) {
  return async () => {
    await new Promise((done) => setTimeout(done, delayMs));
    const at = new Date(Date.now() + skewMs);
    await new Promise((done) => setTimeout(done, delayMs));
    return at;
  };
}

it("reads the database's time: this node's clock plus the measured offset", async () => {
  const clock = new DatabaseClock(database(SKEW_MS, 20), log);
  await clock.sync();
  // The server read its clock midway through a 40 ms round trip: the offset is right within the timer's slack.
  expect(Math.abs(clock.offsetMs - SKEW_MS)).toBeLessThan(15);
  expect(Math.abs(clock.now().getTime() - (Date.now() + SKEW_MS))).toBeLessThan(15);
});

it('keeps the last offset when the database cannot be read', async () => {
  let reachable = true;
  const read = database(SKEW_MS, 1);
  const clock = new DatabaseClock(() => (reachable ? read() : Promise.reject(new Error('down'))), log, 20);
  await clock.start();
  reachable = false;
  await new Promise((done) => setTimeout(done, 100)); // bound: five refreshes (every 20 ms) fail meanwhile
  expect(Math.abs(clock.offsetMs - SKEW_MS)).toBeLessThan(15);
  await clock.stop();
});
