// The render request of a monitor's capture: its image options and steps with their secrets opened.
// Apart from capture-job.ts so what is sent to the renderer reads on its own, next to the runner's flow.
import type { ImageSpec } from '../domain/render-spec.js';
import type { RunStep } from '../render/steps.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { MonitorRecord } from '../stores/monitors.js';
import { openSecrets } from './capture-secrets.js';

/**
 * The render request of a capture: the monitor's image options with its secrets decrypted, its url,
 * always PNG. Secrets that do not decrypt (another key) fail the capture rather than send garbage.
 */
export function captureRequest(monitor: MonitorRecord, secrets: SecretBox): ImageSpec {
  const { steps: _steps, ...capture } = openSecrets(monitor.settings.capture, secrets, monitor.id);
  return { ...capture, url: monitor.settings.url, format: 'png' };
}

/**
 * The monitor's steps as the renderer runs them: secret fill values opened (they stay marked secret,
 * so the renderer keeps them out of its errors). Values that do not open fail the capture, as above.
 */
export function captureSteps(monitor: MonitorRecord, secrets: SecretBox): RunStep[] {
  const { steps } = openSecrets({ steps: monitor.settings.capture.steps }, secrets, monitor.id);
  return steps.map(({ action, selector, value, secret }) => ({ action, selector, value, secret }));
}
