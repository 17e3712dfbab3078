// Where a monitor decides "changed": a capture against its baseline, compared in pixels (diff threads) and
// in text (a text thread), judged by the monitor's diff settings. The pixels count as a change when a
// significant region is left and the changed share reaches minChangeRatio; `mode` says whether the
// pixels, the text or either one decides.
import { isChange } from '../domain/diff-mode.js';
import type { Box } from '../domain/geometry.js';
import type { DiffOptions } from '../domain/monitor-settings.js';
import type { Region } from '../domain/capture-findings.js';
import type { PageBlock } from '../domain/page-facts.js';
import type { DiffResult } from './pixels/compare.js';
import type { CaptureImage, Differ } from './pixels/differ.js';
import { withElements } from './region-elements.js';
import type { TextComparison } from './text/compare.js';
import { compareTexts } from './text/compare-in-thread.js';
import { pngSize } from './pixels/differ.js';
import { outsideBoxes, selectsPart } from './kept-area.js';

const NO_TEXT_CHANGES: TextComparison = { changes: [], total: 0 };

/** One side of the comparison: its image, its text blocks (unknown for a capture that kept none) and the
 * boxes of its ignored elements. */
export interface ComparedCapture {
  image: CaptureImage;
  blocks: PageBlock[] | undefined;
  ignoredBoxes: Box[];
}

/** A capture compared with its baseline. */
export interface Verdict {
  diff: DiffResult;
  text: TextComparison;
  regions: Region[];
  changed: boolean;
}

export async function judgeChange(
  differ: Differ,
  settings: DiffOptions,
  baseline: ComparedCapture,
  current: ComparedCapture & { blocks: PageBlock[] },
): Promise<Verdict> {
  const { threshold, includeAA, ignoreRegions, ignoreText, mode, minChangeRatio } = settings;
  // An ignored element may have moved or resized: leave out where it was in either image.
  const ignore = [...ignoreRegions, ...baseline.ignoredBoxes, ...current.ignoredBoxes];
  // Filters that pick part of the page: only the compared blocks' pixels count (kept-area.ts).
  if (selectsPart(settings.filters ?? [])) {
    const a = pngSize(baseline.image.bytes);
    const b = pngSize(current.image.bytes);
    const kept = [...(baseline.blocks ?? []), ...current.blocks].map((block) => block?.box);
    ignore.push(...outsideBoxes(kept, Math.max(a.width, b.width), Math.max(a.height, b.height)));
  }
  const [diff, text] = await Promise.all([
    differ.compare(baseline.image, current.image, { threshold, includeAA, ignore }),
    baseline.blocks ? compareTexts(baseline.blocks, current.blocks, { ignoreText }) : NO_TEXT_CHANGES,
  ]);
  const visual = diff.regions.length > 0 && diff.diffRatio >= minChangeRatio;
  const regions = withElements(diff.regions, baseline.blocks ?? [], current.blocks);
  return { diff, text, regions, changed: isChange(mode, visual, text.total > 0) };
}
