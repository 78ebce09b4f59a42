import type { DeliveryJob } from "../delivery/job.js";
import type { JobQueue } from "../queue/types.js";
import type { DeadLetter, DeadLetterStore } from "./delivery-store.js";

/** A dead letter as shown to an operator: the backend's client secret is masked. */
export type DeadLetterView = DeadLetter;

function masked(e: DeadLetter): DeadLetterView {
  // A malformed job is dead-lettered as it came: it may have no backend to mask.
  const job = e.job as Partial<DeliveryJob> | null;
  if (!job || typeof job !== "object" || !job.backend || typeof job.backend !== "object") return e;
  return { ...e, job: { ...e.job, backend: { ...e.job.backend, clientSecret: "***" } } };
}

/** Lists dead-lettered delivery jobs, oldest first (for `archivist conserver dlq list`). */
export async function dlqList(
  store: DeadLetterStore,
  opts: { limit?: number } = {},
): Promise<DeadLetterView[]> {
  return (await store.list(opts.limit ?? 100)).map(masked);
}

/**
 * Puts dead-lettered jobs back on the delivery queue (`archivist conserver dlq retry [id...]`):
 * the given ids, or every entry when none are given. Returns the ids re-queued. Safe to repeat:
 * delivery looks each event up before recording it.
 */
export async function dlqRetry(
  store: DeadLetterStore,
  queue: JobQueue<DeliveryJob>,
  opts: { ids?: string[]; limit?: number } = {},
): Promise<string[]> {
  const ids = opts.ids?.length ? opts.ids : (await store.list(opts.limit ?? 1000)).map((e) => e.id);
  const done: string[] = [];
  for (const id of ids) {
    const entry = await store.take(id);
    if (!entry) continue;
    try {
      await queue.add("deliver", entry.job, { jobId: entry.job.idempotencyKey });
    } catch (err) {
      // Not lost: back where it was, and the operator sees the error.
      await store.push(entry);
      throw err;
    }
    done.push(id);
  }
  return done;
}
