/**
 * A time limit on one exchange with another party, headers and body, and the caller's own signal
 * (a job's abort) folded into it.
 *
 * Why not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: in Node 20 the composite holds its
 * timeout signal weakly, and once a garbage collection takes it the timer never aborts anything;
 * a body trickling a byte at a time then holds its reader for ever (seen on CI, reproduced with
 * forced collections). Here one controller is aborted by a timer this module holds, so nothing
 * the collector may take stands between the deadline and the abort.
 */
export interface TimeLimit {
  /** Aborted when the time is up (a `TimeoutError`) or the parent is (with its reason). */
  readonly signal: AbortSignal;
  /** The exchange is over: the timer and the parent's listener are let go. */
  clear(): void;
}

export function timeLimit(ms: number, parent?: AbortSignal): TimeLimit {
  const ac = new AbortController();
  const onParent = () => ac.abort(parent?.reason);
  const timer = setTimeout(() => {
    parent?.removeEventListener("abort", onParent);
    ac.abort(new DOMException(`no answer within ${ms} ms`, "TimeoutError"));
  }, ms);
  // A pending limit must not keep a Node process alive on its own (browsers have no unref).
  (timer as { unref?: () => void }).unref?.();
  if (parent?.aborted) onParent();
  else parent?.addEventListener("abort", onParent, { once: true });
  return {
    signal: ac.signal,
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParent);
    },
  };
}

/** Rejects with the signal's reason once it aborts (at once if it already has). */
function aborted(signal: AbortSignal): { promise: Promise<never>; off(): void } {
  let off = () => {};
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const on = () => reject(signal.reason);
    signal.addEventListener("abort", on, { once: true });
    off = () => signal.removeEventListener("abort", on);
  });
  // Whoever races it reads the rejection; unraced, it must not surface as unhandled.
  promise.catch(() => undefined);
  return { promise, off };
}

/**
 * `fetchFn` under `limit`: its signal is passed on, and the answer's headers are also raced
 * against it, so the limit holds even where a fetch loses track of the signal it was given.
 */
export async function fetchWithin<I extends object>(
  fetchFn: (url: string, init: I & { signal: AbortSignal }) => Promise<Response>,
  url: string,
  init: I,
  limit: TimeLimit,
): Promise<Response> {
  const stop = aborted(limit.signal);
  const answer = fetchFn(url, { ...init, signal: limit.signal });
  // An answer that comes after the limit won the race is not read: its stream is let go.
  answer
    .then((res) => {
      if (limit.signal.aborted) void res.body?.cancel().catch(() => undefined);
    })
    .catch(() => undefined);
  try {
    return await Promise.race([answer, stop.promise]);
  } finally {
    stop.off();
  }
}

/** A read of a stream raced against `signal`, for readers that must stop when it aborts. */
export async function readWithin<T>(read: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return read;
  const stop = aborted(signal);
  try {
    return await Promise.race([read, stop.promise]);
  } finally {
    stop.off();
  }
}
