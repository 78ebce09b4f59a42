import { Counter, Histogram, Registry } from "prom-client";

/** The conserver plugins' Prometheus metrics, in their own registry (merge it into the app's). */
export interface ConserverMetrics {
  registry: Registry;
  /** Deliveries by outcome: delivered, duplicate, retry, dead_letter (each of a batch job counts). */
  jobs: Counter<"outcome">;
  /** Deliveries per queue job taken (1 for a job of its own, the batch's size for a batch job). */
  batchSize: Histogram<string>;
  /** Archivist API calls by route and status (status "error" for network failures). */
  requests: Counter<"route" | "status">;
  rateLimited: Counter<string>;
  /** Time from a job's start to its end, successful or not. */
  jobSeconds: Histogram<"outcome">;
  /** Link runs by link name and outcome: continue, stop, error. */
  links: Counter<"link" | "outcome">;
}

/** Creates the metrics in a new registry (or in `registry`). */
export function createConserverMetrics(registry = new Registry()): ConserverMetrics {
  const r = [registry];
  return {
    registry,
    jobs: new Counter({
      name: "conserver_delivery_jobs_total",
      help: "Delivery jobs by outcome",
      labelNames: ["outcome"],
      registers: r,
    }),
    requests: new Counter({
      name: "conserver_delivery_requests_total",
      help: "Archivist API requests made by the delivery worker",
      labelNames: ["route", "status"],
      registers: r,
    }),
    batchSize: new Histogram({
      name: "conserver_delivery_batch_size",
      help: "Deliveries per delivery queue job taken",
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: r,
    }),
    rateLimited: new Counter({
      name: "conserver_delivery_rate_limited_total",
      help: "429 answers waited out",
      registers: r,
    }),
    jobSeconds: new Histogram({
      name: "conserver_delivery_job_seconds",
      help: "Duration of delivery job attempts",
      labelNames: ["outcome"],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: r,
    }),
    links: new Counter({
      name: "conserver_link_runs_total",
      help: "Link runs by outcome",
      labelNames: ["link", "outcome"],
      registers: r,
    }),
  };
}

let shared: ConserverMetrics | undefined;

/** The process-wide metrics (created on first use); `conserverMetrics().registry` is what to expose. */
export function conserverMetrics(): ConserverMetrics {
  shared ??= createConserverMetrics();
  return shared;
}
