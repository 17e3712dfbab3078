// The saved-logins store: per monitor, the sealed browser state its steps signed in with (see
// src/domain/saved-login.ts). The row goes with its monitor (ON DELETE CASCADE).

export interface SavedLoginRecord {
  monitorId: string;
  /** The monitor's key: reads by key never see another key's login. */
  keyId: string;
  /** Sealed by the SecretBox (bound to the monitor's id): never the state in clear. */
  state: string;
  /** The origins whose cookies and localStorage the state holds. */
  origins: string[];
  savedAt: string;
  expiresAt: string;
}

export interface LoginStore {
  /** The monitor's saved login, if any (expired or not: the caller decides with its clock). */
  get(monitorId: string): Promise<SavedLoginRecord | undefined>;
  /** The login of the key's monitor; undefined for another key's monitor. */
  getOwned(keyId: string, monitorId: string): Promise<SavedLoginRecord | undefined>;
  /** Save (or replace) the monitor's login. */
  put(record: SavedLoginRecord): Promise<void>;
  /** Forget the monitor's login; whether there was one. */
  forget(monitorId: string): Promise<boolean>;
}
