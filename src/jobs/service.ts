// What the HTTP routes ask of jobs: submit (with the egress checks a job would otherwise fail on
// later), read, list, cancel, fetch the result. Routes stay thin; this is the one place of the rules.
import type { Readable } from 'node:stream';
import type { EgressPolicy } from '../egress/policy.js';
import { conflict, gone, notFound, urlBlocked, webhookUrlBlocked } from '../errors.js';
import type { FileStore } from '../stores/file-store.js';
import type { Stores } from '../stores/backend.js';
import type { JobRecord } from '../stores/jobs.js';
import type { JobStatus } from '../domain/job-outcome.js';
import { mintJobId, type JobQueue } from './queue.js';
import { encodeUpload, uploadKey } from './upload-bundle.js';
import type { UploadedFile } from '../domain/render-spec.js';
import { RENDER_JOB_KINDS, type RenderJobKind } from './render-job.js';
import type { JobWorker } from './worker.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { packPdfWork, type PdfWork } from './pdf-work.js';

export interface SubmitInput {
  keyId: string;
  kind: RenderJobKind;
  request: Record<string, unknown> & { url?: string; webhookUrl?: string; files?: UploadedFile[] };
  baseUrl: string;
  idempotencyKey?: string;
  /** PDF work: a render's finishing, or a PDF tool's inputs and options (sealed and bundled, pdf-work.ts). */
  pdf?: PdfWork;
}

export interface JobServiceOptions {
  queue: JobQueue;
  stores: Pick<Stores, 'jobs'>;
  results: FileStore;
  worker: Pick<JobWorker, 'abort'>;
  egress: EgressPolicy;
  /** Seals the passwords of PDF work at rest; absent: no PDF work is taken (tests of other jobs). */
  secrets?: SecretBox;
  /** Throws 507 while the disk is too full to store results (storage.minFreeBytes); absent: no check. */
  assertStorageRoom?: () => Promise<void>;
}

export class JobService {
  constructor(private readonly options: JobServiceOptions) {}

  async submit(input: SubmitInput): Promise<{ job: JobRecord; created: boolean }> {
    const { url, webhookUrl } = input.request;
    // Refused now rather than as a failed job later: the render URL (403, as a synchronous render)...
    if (url !== undefined) {
      const verdict = await this.options.egress.checkUrl(url);
      if (!verdict.allowed && !verdict.unresolvable) throw urlBlocked(verdict.reason);
    }
    // ...and the webhook target, which must be reachable under the same policy (400: it is a field).
    if (webhookUrl !== undefined) {
      const verdict = await this.options.egress.checkUrl(webhookUrl);
      if (!verdict.allowed) {
        throw webhookUrlBlocked(verdict.reason);
      }
    }
    // ...and a job whose result would have nowhere to go (507, to try again once space is freed).
    await this.options.assertStorageRoom?.();
    // The worker hears of the new job from the backend's `jobs` change.
    const { files, ...request } = input.request;
    if (input.pdf) return this.submitPdfWork({ ...input, request }, input.pdf, files ?? [], webhookUrl);
    if (!files) return this.options.queue.submit({ ...input, webhookUrl });
    return this.submitUpload({ ...input, request }, files, webhookUrl);
  }

  /** PDF work: its files join the upload, its passwords are sealed to the job's id before any is stored. */
  private submitPdfWork(
    input: SubmitInput,
    work: PdfWork,
    uploaded: UploadedFile[],
    webhookUrl: string | undefined,
  ): Promise<{ job: JobRecord; created: boolean }> {
    const { pdf: _work, ...rest } = input;
    const id = mintJobId();
    if (!this.options.secrets) throw new Error('PDF work needs the SecretBox (JobServiceOptions.secrets)');
    const { stored, fingerprint, files } = packPdfWork(work, this.options.secrets, id);
    const all = [...uploaded, ...files];
    const request = { ...input.request, pdf: stored };
    if (all.length === 0)
      return this.options.queue.submit({
        ...rest,
        id,
        request,
        fingerprint: { ...input.request, pdf: fingerprint },
        webhookUrl,
      });
    return this.submitUpload({ ...rest, request }, all, webhookUrl, id, { ...input.request, pdf: fingerprint });
  }

  /**
   * An upload's files go to the file store under the job's key before its row exists (a worker may claim
   * the job the moment it is committed); the row keeps only a marker. A crash between the two leaves a
   * file no row refers to, which the sweeper's orphan pass removes.
   */
  private async submitUpload(
    input: SubmitInput,
    files: UploadedFile[],
    webhookUrl: string | undefined,
    id = mintJobId(),
    fingerprint?: Record<string, unknown>,
  ): Promise<{ job: JobRecord; created: boolean }> {
    const { bundle, marker } = encodeUpload(files);
    await this.options.results.put(uploadKey(id), bundle);
    try {
      const submitted = await this.options.queue.submit({
        ...input,
        id,
        request: { ...input.request, upload: marker },
        ...(fingerprint && { fingerprint: { ...fingerprint, upload: marker } }),
        webhookUrl,
      });
      // A repeated Idempotency-Key answers with the earlier job, which has its own upload.
      if (!submitted.created) await this.options.results.remove(uploadKey(id));
      return submitted;
    } catch (err) {
      await this.options.results.remove(uploadKey(id)).catch(() => undefined);
      throw err;
    }
  }

  /** The jobs API shows render jobs only; other kinds (a monitor's capture) are seen through their owner. */
  async get(keyId: string, id: string): Promise<JobRecord> {
    const job = await this.options.stores.jobs.getOwned(keyId, id, RENDER_JOB_KINDS);
    if (!job) throw notFound(`no job ${id}`);
    return job;
  }

  list(
    keyId: string,
    query: { status?: JobStatus; limit: number; before?: { createdAt: string; id: string } },
  ): Promise<JobRecord[]> {
    return this.options.stores.jobs.list(keyId, RENDER_JOB_KINDS, query);
  }

  async cancel(keyId: string, id: string): Promise<JobRecord> {
    const canceled = await this.options.queue.cancel(keyId, id, RENDER_JOB_KINDS);
    if (canceled) {
      this.options.worker.abort(id);
      // Its upload is not needed any more (a render under way has it in memory already).
      if (canceled.request.upload) await this.options.results.remove(uploadKey(id));
      return canceled;
    }
    const job = await this.get(keyId, id); // 404 for a missing or another key's job
    throw conflict(`job ${id} has already ${job.status === 'canceled' ? 'been canceled' : job.status}`);
  }

  /** The result for a download: its size and its bytes as a stream, read as the client takes them. */
  async result(
    keyId: string,
    id: string,
    now = this.options.queue.clock.now(),
  ): Promise<{ job: JobRecord; size: number; body: Readable }> {
    const job = await this.get(keyId, id);
    if (job.status !== 'succeeded' || !job.result) throw notFound(`job ${id} has no result (it is ${job.status})`);
    if (job.result.removed || job.result.expiresAt <= now.toISOString()) {
      throw gone(`the result of job ${id} expired at ${job.result.expiresAt} (jobs.resultTtlHours)`);
    }
    try {
      return { job, ...(await this.options.results.stream(job.result.key)) };
    } catch (err) {
      // The sweeper removed it between the check and the read.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw gone(`the result of job ${id} has expired`);
      throw err;
    }
  }
}
