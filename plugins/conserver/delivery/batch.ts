import { Coalescer, type Outcome } from "../../../src/batching/coalescer.js";
import type { AddOptions, CloseOptions, JobHandler, JobQueue, ProcessOptions } from "../queue/types.js";
import { isRecord } from "../vcon.js";
import type { DeliveryJob } from "./job.js";

/** Deliveries queued at the same moment by concurrent link runs, as one job. */
export interface DeliveryBatch {
  batch: DeliveryJob[];
}

/** What a delivery job carries: one delivery (as links, `dlq retry` and older versions queue it), or a batch. */
export type DeliveryPayload = DeliveryJob | DeliveryBatch;

/** The name a batch job is queued under. */
export const BATCH_JOB = "deliver-batch";

/** Deliveries in one batch at most: a batch is retried whole, so it stays small. */
const MAX_BATCH = 64;

export function isBatch(data: unknown): data is DeliveryBatch {
  return isRecord(data) && "batch" in data;
}

interface Queued {
  name: string;
  job: DeliveryJob;
  opts: AddOptions;
}

/**
 * The producer side of the delivery queue: deliveries added at the same moment (a busy link
 * runtime's concurrent vCons) become one job, so the queue's own cost (BullMQ: a script to add,
 * one to take and one to finish each job, ~165 µs of Redis per job) is paid once per group.
 * A lone delivery stays a job of its own, under its idempotency key as job id, as before. Each
 * `add` resolves once its job is stored, so a link still returns only after its delivery is
 * queued. A batch has no job id: two deliveries of one event in different jobs are kept apart
 * by the worker (one at a time per idempotency key, across workers through `EventClaims`).
 */
export class BatchingDeliveryQueue implements JobQueue<DeliveryJob> {
  private readonly groups: Coalescer<Queued, undefined>;

  constructor(
    private readonly queue: JobQueue<DeliveryPayload>,
    maxBatch = MAX_BATCH,
  ) {
    this.groups = new Coalescer({
      runGroup: (items) => this.addGroup(items),
      maxGroup: maxBatch,
      inFlight: 2,
    });
  }

  get name(): string {
    return this.queue.name;
  }

  get attempts(): number {
    return this.queue.attempts;
  }

  async add(name: string, job: DeliveryJob, opts: AddOptions = {}): Promise<void> {
    // A delayed delivery keeps its own time.
    if (opts.delayMs) return this.queue.add(name, job, opts);
    await this.groups.submit({ name, job, opts });
  }

  process(handler: JobHandler<DeliveryJob>, opts?: ProcessOptions): void {
    this.queue.process(handler as JobHandler<DeliveryPayload>, opts);
  }

  counts() {
    return this.queue.counts();
  }

  close(opts?: CloseOptions): Promise<void> {
    return this.queue.close(opts);
  }

  private async addGroup(items: Queued[]): Promise<Array<Outcome<undefined>>> {
    // One delivery per idempotency key: the same event twice in a batch would be recorded twice.
    const distinct = [...new Map(items.map((i) => [i.job.idempotencyKey, i])).values()];
    const [only] = distinct;
    if (only && distinct.length === 1) await this.queue.add(only.name, only.job, only.opts);
    else await this.queue.add(BATCH_JOB, { batch: distinct.map((i) => i.job) });
    return items.map(() => ({ row: undefined }));
  }
}
