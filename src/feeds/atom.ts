// One feed's Atom document, written by the `feed` package: an entry per change, newest first, whose HTML
// content has the summary, the text changes (removed in <del>, added in <ins>) and the first region's crop.
import { Feed } from 'feed';
import { changeLine, type Markup } from '../channels/message-text.js';
import { summarize } from '../diff/text/summary.js';
import type { CaptureRecord } from '../stores/captures.js';

export interface AtomEntry {
  capture: CaptureRecord;
  monitorName: string;
  /** The dashboard's page of the capture. */
  link: string;
  /** Where the first region's crop is served; absent when the capture has no region or no image. */
  cropUrl?: string;
}

export interface AtomInput {
  /** Stable across rotations: readers keep their read marks when the URL changes. */
  id: string;
  title: string;
  /** The feed's own URL (rel="self"). */
  selfUrl: string;
  /** The dashboard (rel="alternate"). */
  link: string;
  entries: AtomEntry[];
  /** When nothing changed yet: the feed's creation. */
  emptyUpdated: Date;
}

/** The id of a capture's entry: a URN, so it stays the same whatever address the service is reached at. */
export const entryId = (captureId: string) => `urn:pagewatch:capture:${captureId}`;

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const HTML: Markup = {
  text: escapeHtml,
  removed: (s) => `<del>${escapeHtml(s)}</del>`,
  added: (s) => `<ins>${escapeHtml(s)}</ins>`,
  link: (label, url) => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`,
  bold: (s) => `<strong>${escapeHtml(s)}</strong>`,
};

function entryContent(e: AtomEntry): string {
  const c = e.capture;
  const summary = summarize(c.textChanges, c.textChangesTotal);
  const parts = [`<p>${escapeHtml(summary ?? 'The page looks different.')}</p>`];
  if (c.textChanges.length) {
    parts.push(`<ul>${c.textChanges.map((change) => `<li>${changeLine(change, HTML)}</li>`).join('')}</ul>`);
    const more = c.textChangesTotal - c.textChanges.length;
    if (more > 0) parts.push(`<p>…and ${more} more text changes.</p>`);
  }
  if (e.cropUrl) {
    parts.push(
      `<p><img src="${escapeHtml(e.cropUrl)}" alt="The first changed area of ${escapeHtml(e.monitorName)}"></p>`,
    );
  }
  parts.push(`<p><a href="${escapeHtml(e.link)}">See the capture in Pagewatch</a></p>`);
  return parts.join('\n');
}

export function atomDocument(input: AtomInput): string {
  const newest = input.entries[0];
  const feed = new Feed({
    id: input.id,
    title: input.title,
    link: input.link,
    updated: newest ? new Date(newest.capture.takenAt) : input.emptyUpdated,
    generator: 'Pagewatch',
    feedLinks: { atom: input.selfUrl },
  });
  for (const e of input.entries) {
    const summary = summarize(e.capture.textChanges, e.capture.textChangesTotal);
    feed.addItem({
      id: entryId(e.capture.id),
      title: `${e.monitorName}: Changed`,
      link: e.link,
      date: new Date(e.capture.takenAt),
      ...(summary && { description: summary }),
      content: entryContent(e),
    });
  }
  return feed.atom1();
}
