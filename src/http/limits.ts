// The limits the HTTP layer checks requests against: the `limits` settings and the monitors' own.
import type { Config } from '../config.js';

export interface HttpLimits {
  maxBodyBytes: number;
  maxTimeoutMs: number;
  uploadMaxBytes: number;
  anonymousUploadMaxBytes: number;
  uploadMaxFiles: number;
  anonymousUploadMaxFiles: number;
  uploadMaxFileBytes: number;
  anonymousMaxBodyBytes: number;
  maxRetention: number;
  minIntervalSeconds: number;
  anonymousMaxTimeoutMs: number;
  anonymousConcurrencyPerIp: number;
  anonymousMaxPdfPages: number;
  maxFullPageHeight: number;
  maxImagePixels: number;
  /** pdf.maxFiles: the PDFs one PDF tool call may take. */
  pdfMaxFiles: number;
}

export function httpLimits(config: Readonly<Config>): HttpLimits {
  return {
    ...config.limits,
    pdfMaxFiles: config.pdf.maxFiles,
    maxRetention: config.monitors.maxRetention,
    minIntervalSeconds: config.monitors.minIntervalSeconds,
  };
}
