// A small disk of the test's own: a tmpfs mounted for the test (the tests run as root), and a filler file
// that takes its free space down to what the test wants left. Always `unmount` it in afterAll.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface SmallDisk {
  /** Where it is mounted. */
  dir: string;
  freeBytes(): number;
  /** Fill the disk until `leave` bytes (or, with 0, nothing at all) are left free. */
  fill(leave: number): void;
  /** Remove the filler: the disk has its room back. */
  free(): void;
  unmount(): void;
}

export function mountSmallDisk(sizeMb: number, owner?: string): SmallDisk {
  const dir = mkdtempSync('/tmp/pagewatch-small-disk-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir]);
  if (owner) execFileSync('chown', [owner, dir]);
  const filler = join(dir, 'filler');
  const freeBytes = () => {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  };
  return {
    dir,
    freeBytes,
    fill(leave) {
      const fd = openSync(filler, 'a');
      try {
        const chunk = Buffer.alloc(64 * 1024, 1);
        for (let want = freeBytes() - leave; want > 0; want = freeBytes() - leave) {
          writeSync(fd, chunk, 0, Math.min(chunk.length, want));
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync('umount', ['--lazy', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
