// ChannelDeliveryDeps from the service's parts: the composition root (src/app/compose.ts) calls this once.
// A capture's image and a monitor are read only for the key whose channel sends: another key's ids give
// nothing, as they would through the API.
import type { Config } from '../config.js';
import type { EgressPolicy } from '../egress/policy.js';
import type { CaptureStore } from '../stores/captures.js';
import type { FileStore } from '../stores/file-store.js';
import type { MonitorStore } from '../stores/monitors.js';
import type { ChannelDeliveryDeps } from './deliver.js';

export interface ChannelDeliverySources {
  config: Pick<Config, 'email' | 'publicUrl' | 'webhooks'>;
  egress: EgressPolicy;
  captures: Pick<CaptureStore, 'getOwned'>;
  monitors: Pick<MonitorStore, 'get'>;
  /** The capture files (storage.files().captures). */
  files: Pick<FileStore, 'get'>;
}

export function channelDeliveryDeps(sources: ChannelDeliverySources): ChannelDeliveryDeps {
  const { config, egress, captures, monitors, files } = sources;
  return {
    egress,
    email: config.email,
    publicUrl: config.publicUrl,
    timeoutMs: config.webhooks.timeoutMs,
    async captureImage(keyId, captureId) {
      const capture = await captures.getOwned(keyId, captureId);
      if (!capture?.imageKey) return undefined;
      try {
        return await files.get(capture.imageKey);
      } catch (err) {
        // Removed by retention since the event was recorded: no crop, the message still goes.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async monitor(keyId, monitorId) {
      const monitor = await monitors.get(monitorId);
      if (!monitor || monitor.keyId !== keyId) return undefined;
      const tags = (monitor.settings as { tags?: unknown }).tags;
      return {
        name: monitor.settings.name,
        url: monitor.settings.url,
        tags: Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [],
      };
    },
  };
}
