import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** Prometheus metrics of one server instance. */
export interface Metrics {
  registry: Registry;
  requests: Counter<"method" | "route" | "status">;
  latency: Histogram<"method" | "route">;
}

/**
 * A fresh registry (one per server, so tests can start many in one process). `reads`: where the
 * reads that a replica may serve went (`archivist_replica_reads_total`), counted as they run;
 * `signing`: the signatures refused (`archivist_signing_refused_total`, keys/signed-basis.ts);
 * `standby`: the refusals for a standby's sake (`archivist_standby_refused_total`, store/standby.ts).
 * `served`: whether anyone can read the registry (a metrics token is set). Only then are the
 * process's own metrics collected: their event-loop delay monitor wakes the process every 10 ms
 * (~10 ms of CPU a second on an idle two-core guest) and their GC observer runs at every
 * collection, for a registry nobody may read.
 */
export function createMetrics(
  reads?: { served: { replica: number; primary: number } },
  signing?: { refusals: ReadonlyMap<string, number> },
  standby?: () => Record<string, number>,
  served = true,
): Metrics {
  const registry = new Registry();
  if (served) collectDefaultMetrics({ register: registry });
  if (standby) {
    const refused = new Counter({
      name: "archivist_standby_refused_total",
      help: "Refusals for a standby's sake: writes answered 503 NOT_ON_STANDBY (write), a DATABASE_READ_URL found no streaming standby of the primary (read_url), a DATABASE_STANDBY_URL found none (standby_url)",
      labelNames: ["what"],
      registers: [registry],
      collect() {
        refused.reset();
        for (const [what, n] of Object.entries(standby())) refused.inc({ what }, n);
      },
    });
  }
  if (signing) {
    const refused = new Counter({
      name: "archivist_signing_refused_total",
      help: "Signatures refused because the database did not follow from what the service signed before (a receipt, seal, checkpoint, period close or tlog-proof), by what was refused",
      labelNames: ["what"],
      registers: [registry],
      collect() {
        refused.reset();
        for (const [what, n] of signing.refusals) refused.inc({ what }, n);
      },
    });
  }
  if (reads) {
    const served = new Counter({
      name: "archivist_replica_reads_total",
      help: "Reads a replica may serve (lists, searches, counts, proofs, tiles), by the server that served them",
      labelNames: ["served_by"],
      registers: [registry],
      collect() {
        served.reset();
        served.inc({ served_by: "replica" }, reads.served.replica);
        served.inc({ served_by: "primary" }, reads.served.primary);
      },
    });
  }
  return {
    registry,
    requests: new Counter({
      name: "archivist_http_requests_total",
      help: "HTTP requests by route and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    latency: new Histogram({
      name: "archivist_http_request_seconds",
      help: "HTTP request latency",
      labelNames: ["method", "route"],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}
