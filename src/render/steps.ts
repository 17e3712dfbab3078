// SKELETON (helper D replaces): a monitor's steps, run after load and before the capture.
import type { Page } from 'playwright';
import type { Budget } from './budget.js';

/** A step as the renderer runs it: secrets already opened. */
export interface RunStep { action: string; selector?: string; value?: string }

export async function runSteps(_page: Page, _steps: RunStep[], _budget: Budget): Promise<void> {
  // not implemented yet
}
