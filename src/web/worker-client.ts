import { WORKER_URL, type WorkerAnswer, type WorkerAsk } from "./worker-protocol.js";

/** A job running in the pages' verifying worker; `stop` ends it (its answers are then never seen). */
export interface WorkerJob {
  stop(): void;
}

/**
 * Starts one job in a worker of its own: every answer goes to `onAnswer` until the job is done,
 * fails or is stopped. A worker per job, so a job asked under roots since replaced is ended
 * outright, never left to answer late.
 */
export function runInWorker(ask: WorkerAsk, onAnswer: (a: WorkerAnswer) => void): WorkerJob {
  const worker = new Worker(WORKER_URL, { type: "module" });
  let live = true;
  const stop = () => {
    live = false;
    worker.terminate();
  };
  worker.onmessage = (e: MessageEvent<WorkerAnswer>) => {
    if (!live) return;
    const a = e.data;
    if (a.kind !== "progress") stop();
    onAnswer(a);
  };
  worker.onerror = (e) => {
    if (!live) return;
    stop();
    onAnswer({ kind: "error", message: e.message || "the verifying worker could not start" });
  };
  worker.postMessage(ask);
  return { stop };
}
