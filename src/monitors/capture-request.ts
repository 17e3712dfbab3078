// The render request of a monitor's capture: its image options and steps with their secrets opened.
// Apart from capture-job.ts so what is sent to the renderer reads on its own, next to the runner's flow.
import type { ImageSpec } from '../domain/render-spec.js';
import type { RunStep } from '../render/steps.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { MonitorRecord } from '../stores/monitors.js';
import { originOf } from '../render/origin-headers.js';
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
 * so the renderer keeps them out of its errors) and bound to the origin they may be typed into. Values
 * that do not open fail the capture, as above.
 */
export function captureSteps(monitor: MonitorRecord, secrets: SecretBox): RunStep[] {
  const { steps } = openSecrets({ steps: monitor.settings.capture.steps }, secrets, monitor.id);
  let pageOrigin = originOf(monitor.settings.url);
  return steps.map(({ action, selector, value, secret, origin }) => {
    if (action === 'goto' && value !== undefined) pageOrigin = originOf(value);
    const step: RunStep = { action, selector, value, secret };
    // Where the secret was given for: its own origin, else the page the steps were meant to be on.
    if (secret) step.origin = (origin === undefined ? undefined : originOf(origin)) ?? pageOrigin ?? 'null';
    return step;
  });
}
