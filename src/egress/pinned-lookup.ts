// A DNS lookup that answers only the address the egress policy checked: a connection made with it
// cannot be steered elsewhere by a second DNS answer (rebinding), and TLS still verifies the real
// hostname. Used by every request Node makes for the service (webhooks, monitors' content fetch).
import type { LookupFunction } from 'node:net';

export function pinnedLookup(verdict: { address: string; family: 4 | 6 }): LookupFunction {
  return (_host, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: verdict.address, family: verdict.family },
      ]);
    } else {
      callback(null, verdict.address, verdict.family);
    }
  };
}
