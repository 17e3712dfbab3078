// Where a render's time went, stage by stage, and which wait ended its load: the `load` part of its
// diagnostics. Stages are laps of one clock started with the render, each measured in whole milliseconds
// from the render's start and floored, so together they never add up to more than its renderMs.
import type { LoadTimeline } from '../domain/render-diagnostics.js';

export class LoadClock {
  private readonly stagesMs: Record<string, number> = {};
  private lastMs = 0;
  /** What ended the wait for the page (LoadTimeline.endedBy); set as the waits run. */
  endedBy = '';

  constructor(private readonly started: number) {}

  /** The time since the last lap (or the start) was spent in `stage`; a stage run again adds up. */
  lap(stage: string): void {
    const now = Math.floor(performance.now() - this.started);
    this.stagesMs[stage] = (this.stagesMs[stage] ?? 0) + (now - this.lastMs);
    this.lastMs = now;
  }

  timeline(): LoadTimeline {
    return { endedBy: this.endedBy, stagesMs: { ...this.stagesMs } };
  }
}
