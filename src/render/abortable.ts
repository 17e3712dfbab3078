/**
 * Rejects as soon as `signal` aborts, without waiting for `work` (a hung page never settles until it
 * is closed). If `work` settles later, `cleanup` gets its value.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal, cleanup?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(abortReason(signal));
      work.then(
        (v) => cleanup?.(v),
        () => undefined,
      );
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}

/**
 * Why `signal` aborted, as an Error. The signals here abort with Errors (AbortSignal.timeout's
 * DOMException, the renderer's own); `reason` is typed any, so anything else is wrapped.
 */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}
