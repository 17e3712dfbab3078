// What a capture found and how a monitor stands: the values stored with a capture, shown by the API and
// sent in webhooks.
import type { Box } from './geometry.js';

export const MONITOR_STATUSES = ['baseline', 'unchanged', 'changed', 'failed', 'suspect', 'filter_missing'] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

export const CAPTURE_REASONS = ['schedule', 'manual', 'catch-up'] as const;
export type CaptureReason = (typeof CAPTURE_REASONS)[number];

/**
 * succeeded: a capture that can be a baseline. failed: nothing was read. suspect: the page was read but
 * looks like a failure (a bot check, an empty page, a login wall): never a change, never a baseline.
 * filter_missing: a selecting filter matched nothing: never a change, never a baseline.
 */
export const CAPTURE_STATUSES = ['succeeded', 'failed', 'suspect', 'filter_missing'] as const;
export type CaptureStatus = (typeof CAPTURE_STATUSES)[number];

/** An element a changed region overlaps, with its text in the baseline and in this capture. */
export interface RegionElement {
  selector: string;
  tag: string;
  before: string | null;
  after: string | null;
}

/** A changed area of the capture (image pixels) and what lies behind it. */
export interface Region extends Box {
  /** Changed pixels counted in it. */
  pixels?: number;
  /** Up to 5 elements it overlaps, the largest overlap first. */
  elements?: RegionElement[];
}

/** One piece of a word-level diff (jsdiff's shape): unchanged, or added, or removed. */
export interface WordPart {
  value: string;
  added?: true;
  removed?: true;
}

export interface TextChange {
  kind: 'added' | 'removed' | 'changed';
  before: string | null;
  after: string | null;
  /** Where the block is in this capture (in the baseline for a removed one), image pixels. */
  box: Box | null;
  selector: string | null;
  /** Changed blocks: the word-level diff from before to after. */
  words?: WordPart[];
}

/** One notifyWhen rule as this capture found it. */
export interface ConditionResult {
  /** The rule's place among all rules, counted depth first through groups from 0. */
  index: number;
  /** Where the rule is in notifyWhen ("1", "1.any.0"); absent on captures recorded before groups: String(index). */
  path?: string;
  /** The element the rule read; null for the price rules, which read the capture's product. */
  selector: string | null;
  /** The rule's test (textContains, numberBelow, priceBelow, ...). */
  test: string;
  met: boolean;
  /**
   * What was read: the element's text, or the number parsed from it, the price, or the availability;
   * null when nothing was read.
   */
  value: string | number | null;
  /** The rule only had to hold (`while: true`). */
  while?: true;
}

/** A recorded result's path, for results recorded before paths were. */
export function resultPath(result: ConditionResult): string {
  return result.path ?? String(result.index);
}

/** How many text changes a capture keeps (the total is counted apart). */
export const MAX_TEXT_CHANGES = 50;
