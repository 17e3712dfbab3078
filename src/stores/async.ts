// INTERIM (issue 12 skeleton): the async face of a synchronous store class, so callers can move to the
// async interfaces before each store has its Kysely implementation. Deleted once no store uses it.
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

export function asAsync<T extends object>(store: T): Async<T> {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          return Promise.resolve((value as (...a: unknown[]) => unknown).apply(target, args));
        } catch (err) {
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
      };
    },
  }) as unknown as Async<T>;
}
