// vitest globalSetup of the `containers` project: the images, built (or found in the cache) once for both
// files. Where podman is missing it builds nothing and the files say, in one line, that they are skipped.
import { buildPagewatchImage, buildPostgresImage, ensureBaseImage, podmanMissing } from '../helpers/podman.js';

export default async function setup(): Promise<void> {
  const missing = podmanMissing();
  if (missing) return;
  const started = Date.now();
  const log = (msg: string) => console.log(`[containers] ${msg} (${Math.round((Date.now() - started) / 1000)} s)`);
  await ensureBaseImage(log);
  log('building the PostgreSQL test image and the pagewatch image from Containerfile, at once');
  await Promise.all([buildPostgresImage(), buildPagewatchImage()]);
  log('images ready');
}
