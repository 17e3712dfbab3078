// Work in progress per client: at most `max` at once each. In process memory, like the token buckets.

export class ClientSlots {
  private readonly inUse = new Map<string, number>();

  constructor(private readonly max: number) {}

  /**
   * Take a slot for `client`. Returns the function that gives it back (idempotent: call it in a
   * `finally`), or undefined when the client already holds all of its slots.
   */
  tryTake(client: string): (() => void) | undefined {
    const held = this.inUse.get(client) ?? 0;
    if (held >= this.max) return undefined;
    this.inUse.set(client, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const now = (this.inUse.get(client) ?? 1) - 1;
      if (now <= 0) this.inUse.delete(client);
      else this.inUse.set(client, now);
    };
  }

  /** Slots held by `client` (for tests and status). */
  held(client: string): number {
    return this.inUse.get(client) ?? 0;
  }
}
