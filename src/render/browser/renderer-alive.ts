// Whether a page's renderer process is still there. Chromium reports a renderer that ended (killed, out of
// memory) with the page's `crash` event, but a call in flight can fail first — a navigation as
// net::ERR_ABORTED, an evaluate as "Target crashed" — so a failure alone does not say which it was.

/**
 * Asks the page to evaluate a constant, racing its `crash` event: true when it answers, false when it
 * crashed, undefined when neither happened within `withinMs` (a page busy in a script of its own).
 */
export async function rendererAlive(
  page: { evaluate(expression: string): Promise<unknown> },
  crashed: AbortSignal,
  withinMs: number,
): Promise<boolean | undefined> {
  if (crashed.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onCrash: (() => void) | undefined;
  const crashEvent = new Promise<false>((resolve) => {
    onCrash = () => resolve(false);
    crashed.addEventListener('abort', onCrash, { once: true });
  });
  const bound = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, withinMs, undefined);
  });
  // An evaluate that fails (a dead target, or a document being replaced) proves nothing: wait for the event.
  const answer = page.evaluate('1').then(
    () => true as const,
    () => Promise.race([crashEvent, bound]),
  );
  try {
    const alive = await Promise.race([answer, crashEvent, bound]);
    return crashed.aborted ? false : alive;
  } finally {
    clearTimeout(timer);
    if (onCrash) crashed.removeEventListener('abort', onCrash);
  }
}
