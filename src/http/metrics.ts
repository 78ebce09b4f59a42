import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

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
 * `standby`: the refusals for a standby's sake (`archivist_standby_refused_total`, store/replication/standby.ts).
 * `logs`: the logs held (`archivist_log_held`, one series per held log and why) and the swaps of a
 * log's shared head refused (`archivist_head_swap_refused_total`, keys/shared-head.ts), and the
 * verifiable index's revisions not made (`archivist_index_failures_total`, vindex/index-writer.ts).
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
  logs?: () => {
    held: ReadonlyArray<{ tenant_id: string; kind: string }>;
    headSwapsRefused: number | undefined;
    indexFailures: number;
  },
): Metrics {
  const registry = new Registry();
  if (served) collectDefaultMetrics({ register: registry });
  if (logs) logMetrics(registry, logs);
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

/** The logs this process signs nothing for, and the shared heads' refused swaps. */
function logMetrics(
  registry: Registry,
  logs: () => {
    held: ReadonlyArray<{ tenant_id: string; kind: string }>;
    headSwapsRefused: number | undefined;
    indexFailures: number;
  },
): void {
  const held = new Gauge({
    name: "archivist_log_held",
    help: "1 for each log this process signs nothing for, by why: behind or fork (its database against what was signed), head (another service signs it), refused (its stored signed past does not verify)",
    labelNames: ["log", "kind"],
    registers: [registry],
    collect() {
      held.reset();
      for (const h of logs().held) held.set({ log: `tenant/${h.tenant_id}`, kind: h.kind }, 1);
    },
  });
  const swaps = new Counter({
    name: "archivist_head_swap_refused_total",
    help: "Swaps of a log's shared head (etcd) that found another writer's head: followed when this database holds it, else the log is held",
    registers: [registry],
    collect() {
      swaps.reset();
      const n = logs().headSwapsRefused;
      if (n !== undefined) swaps.inc(n);
    },
  });
  const index = new Counter({
    name: "archivist_index_failures_total",
    help: "Revisions of a log's verifiable index not made at a seal (its rows do not give the signed index, or a fault): the log is sealed on, the index tried again a minute later",
    registers: [registry],
    collect() {
      index.reset();
      index.inc(logs().indexFailures);
    },
  });
}
