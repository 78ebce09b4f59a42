/**
 * One abort listener on a long-lived signal, however many requests share it.
 *
 * A client's signal (a delivery job's, a CLI run's) outlives its requests, and a batch job runs a
 * dozen deliveries on one signal at once. Each request handed that signal to undici, which adds an
 * abort listener per request and drops it only when the answer's body closes, so a busy signal
 * carried more than Node's limit of ten (`MaxListenersExceededWarning` dozens of times a run) and
 * a body never read kept its listener as long as the signal lived. A lease gives each request a
 * signal of its own, aborted through the one listener on the shared signal that stays only while
 * some lease is out.
 */
export interface SignalLease {
  /** The request's own signal: aborted with the shared signal's reason. */
  readonly signal: AbortSignal;
  /** Ends the lease; the shared signal's listener goes with the last one. */
  release(): void;
}

class Fanout {
  readonly leases = new Set<AbortController>();
  private readonly onAbort = () => {
    for (const c of this.leases) c.abort(this.parent.reason);
    this.leases.clear();
    fanouts.delete(this.parent);
  };

  constructor(private readonly parent: AbortSignal) {
    parent.addEventListener("abort", this.onAbort, { once: true });
  }

  drop(c: AbortController): void {
    this.leases.delete(c);
    if (this.leases.size > 0) return;
    this.parent.removeEventListener("abort", this.onAbort);
    fanouts.delete(this.parent);
  }
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/** A signal of its own for one request under `parent`; release it when the request is done. */
export function leaseSignal(parent: AbortSignal): SignalLease {
  const c = new AbortController();
  if (parent.aborted) {
    c.abort(parent.reason);
    return { signal: c.signal, release: () => undefined };
  }
  let f = fanouts.get(parent);
  if (!f) {
    f = new Fanout(parent);
    fanouts.set(parent, f);
  }
  f.leases.add(c);
  const fanout = f;
  let released = false;
  return {
    signal: c.signal,
    release() {
      if (released) return;
      released = true;
      fanout.drop(c);
    },
  };
}
