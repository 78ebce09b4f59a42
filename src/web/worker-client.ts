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

/**
 * One worker kept for a page's jobs, started when the page loads: a bundle is then checked with
 * no request at all (the worker's script is already here). A job asked while another runs ends
 * the other (its worker goes, a new one comes).
 */
export class PageWorker {
  private worker = new Worker(WORKER_URL, { type: "module" });
  private busy = false;

  run(ask: WorkerAsk, onAnswer: (a: WorkerAnswer) => void): void {
    if (this.busy) {
      this.worker.terminate();
      this.worker = new Worker(WORKER_URL, { type: "module" });
    }
    const worker = this.worker;
    this.busy = true;
    const end = () => {
      worker.onmessage = null;
      worker.onerror = null;
      if (worker === this.worker) this.busy = false;
    };
    worker.onmessage = (e: MessageEvent<WorkerAnswer>) => {
      if (e.data.kind !== "progress") end();
      onAnswer(e.data);
    };
    worker.onerror = (e) => {
      end();
      onAnswer({ kind: "error", message: e.message || "the verifying worker could not start" });
    };
    worker.postMessage(ask);
  }
}
