// What a database does so that data rewritten in place leaves no old copy on disk (the plaintext of
// secrets sealed at rest): SQLite's is src/stores/sql/sqlite/scrub.ts.
export interface Scrub {
  /** From now on, pages freed by writes are zeroed. Returns what puts the setting back. */
  zeroFreedPages(): () => void;
  /** Rebuild the database from live rows only; false when another process kept it busy. */
  compact(): Promise<boolean>;
  /** Get the rebuilt pages into the main file and empty the log; false when a reader kept it busy. */
  flush(): Promise<boolean>;
}
