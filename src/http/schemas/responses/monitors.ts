// A monitor as the API answers it, and the answer to "capture now".
import { z } from 'zod';
import { CAPTURE_REASONS, MONITOR_STATUSES } from '../../../domain/capture-findings.js';
import { JOB_STATUSES } from '../../../domain/job-outcome.js';
import type { MonitorView } from '../../../monitors/view.js';
import { monitorSchema } from '../monitors.js';
import type { Documents, Holds } from '../type-checks.js';
import { dateTime } from './common.js';

/** The settings as a create validates them, with every default filled in, beside the monitor's state. */
export function monitor(limits: Parameters<typeof monitorSchema>[0]) {
  return z
    .strictObject({
      id: z.string(),
      ...monitorSchema(limits).shape,
      createdAt: dateTime(),
      updatedAt: dateTime(),
      lastRunAt: dateTime().optional(),
      nextRunAt: dateTime().optional(),
      lastStatus: z.enum(MONITOR_STATUSES).optional(),
      lastChangeAt: dateTime().optional(),
      skippedRuns: z.int().describe('Ticks skipped because the previous capture was still pending'),
      login: z
        .strictObject({
          savedAt: dateTime().describe('When the steps signed in and their state was saved'),
          expiresAt: dateTime().describe('After it the steps run again (monitors.loginTtlHours)'),
          origins: z.array(z.string()).describe('The origins whose cookies and localStorage are kept'),
        })
        .optional()
        .describe('The saved login (capture.saveLogin), when one is kept; the state itself is never shown'),
    })
    .describe('A monitor as stored: its settings with every default filled in, and its state');
}
export type MonitorDocumented = Holds<Documents<MonitorView, ReturnType<typeof monitor>>>;

export const runAccepted = z.object({
  monitorId: z.string(),
  status: z.enum(JOB_STATUSES),
  reason: z.enum(CAPTURE_REASONS),
  queuedAt: dateTime(),
  alreadyPending: z.boolean().describe('A capture was already queued or running: this is that one'),
});
export type RunAccepted = z.output<typeof runAccepted>;
