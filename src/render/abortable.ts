/**
 * Rejects as soon as `signal` aborts, without waiting for `work` (a hung page never settles until it
 * is closed). If `work` settles later, `cleanup` gets its value.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal, cleanup?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      work.then(
        (v) => cleanup?.(v),
        () => undefined,
      );
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
