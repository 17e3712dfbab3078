// How much room the disk of dataDir has left, for /ready and for refusing new work before the disk is
// full (storage.minFreeBytes). One statfs call at most every READING_TTL_MS however many requests ask:
// the cost per request is a cached number.
import { statfs } from 'node:fs/promises';
import { humanBytes } from '../domain/units.js';
import { insufficientStorage } from '../errors.js';

/** How long one reading is used: free space does not move far in a second, and requests may be many. */
export const READING_TTL_MS = 1000;

export interface DiskReading {
  freeBytes: number;
  /** Under storage.minFreeBytes (or nothing free at all). */
  low: boolean;
}

export interface DiskSpaceOptions {
  /** The directory whose disk is measured (dataDir). */
  dir: string;
  minFreeBytes: number;
  /** Milliseconds now; injected by tests. */
  now?: () => number;
}

export class DiskSpace {
  private last: { at: number; reading: Promise<DiskReading | undefined> } | undefined;
  private readonly now: () => number;

  constructor(private readonly options: DiskSpaceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The free space, read at most once a READING_TTL_MS; undefined when it cannot be read. */
  reading(): Promise<DiskReading | undefined> {
    const now = this.now();
    if (!this.last || now - this.last.at >= READING_TTL_MS || now < this.last.at) {
      this.last = { at: now, reading: this.measure() };
    }
    return this.last.reading;
  }

  /** /ready's storage check: not usable while the free space is under the threshold. */
  async readiness(): Promise<{ usable: boolean; reason?: string }> {
    const reading = await this.reading();
    if (!reading?.low) return { usable: true };
    return {
      usable: false,
      reason:
        `the disk of dataDir has ${humanBytes(reading.freeBytes)} free, under storage.minFreeBytes ` +
        `(${humanBytes(this.options.minFreeBytes)}): free space, or new work is refused and running jobs cannot store their output`,
    };
  }

  /** Throws 507 insufficient_storage while the free space is under the threshold: new work is refused. */
  async assertRoom(): Promise<void> {
    const reading = await this.reading();
    if (reading?.low) throw insufficientStorage('local', { nearlyFull: reading.freeBytes > 0 });
  }

  private async measure(): Promise<DiskReading | undefined> {
    try {
      const stats = await statfs(this.options.dir);
      const freeBytes = stats.bavail * stats.bsize;
      return { freeBytes, low: freeBytes === 0 || freeBytes < this.options.minFreeBytes };
    } catch {
      return undefined; // no reading (the directory is not there yet): nothing to refuse on
    }
  }
}
