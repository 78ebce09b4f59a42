import type { Ctx } from "../context.js";

/** The background workers of one process. */
export interface Workers {
  wakeCommit(tenantId: string): void;
  /** Resolves when the workers' dependencies answer (for /readyz). */
  ready(): Promise<void>;
  /** Stops taking work and flushes what is in hand. */
  stop(): Promise<void>;
}

/** Starts the committer, sealer, anchorer and scanner (or none, for `serve --no-workers`). */
export function startWorkers(_ctx: Ctx, opts: { none?: boolean } = {}): Workers {
  void opts;
  return {
    wakeCommit: () => undefined,
    ready: async () => undefined,
    stop: async () => undefined,
  };
}
