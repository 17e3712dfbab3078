/**
 * worker_threads entry: one Markdown page (markdownPage) per thread, started by renderMarkdownPage from dist/
 * (compiled). The input arrives in workerData, the HTML goes back as one message; the thread then ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { markdownPage, MarkdownTemplateError, type MarkdownSource } from './markdown-page.js';

export interface MarkdownPageInput {
  sources: MarkdownSource[];
  template?: string;
  lang?: string;
}
export type MarkdownPageReply = { ok: true; html: string } | { ok: false; template: boolean; message: string };

const port = parentPort;
if (port === null) throw new Error('src/render/markdown/thread.ts must be started as a worker thread');
const { sources, template, lang } = workerData as MarkdownPageInput;
let reply: MarkdownPageReply;
try {
  reply = { ok: true, html: markdownPage(sources, template, lang) };
} catch (err) {
  reply = {
    ok: false,
    template: err instanceof MarkdownTemplateError,
    message: err instanceof Error ? err.message : String(err),
  };
}
port.postMessage(reply);
