import { Gauge, type Registry } from "prom-client";
import type { Ctx } from "../context.js";
import { type LogWait, waitingWork } from "../services/operator/waiting-work.js";

/**
 * The ages of each log's waiting work, read from the database at each scrape (the alerts of
 * deploy/prometheus/alerts.yml page on them): `archivist_commit_backlog_seconds`, how long its
 * oldest uncommitted record has waited for the committer, and `archivist_witness_lag_seconds`,
 * how long its oldest checkpoint has waited for a quorum of witnesses. A log with nothing waiting
 * has no series, as a log not held has none of `archivist_log_held`. Both gauges share one read
 * per scrape; a database that does not answer fails the scrape, which the alerts see as the
 * target down rather than as a log with nothing waiting.
 */
export function workMetrics(registry: Registry, ctx: Pick<Ctx, "db" | "config">): void {
  let reading: ReturnType<typeof waitingWork> | undefined;
  const read = () => {
    reading ??= waitingWork(ctx).finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const set = (g: Gauge<"log">, waits: LogWait[]) => {
    g.reset();
    for (const w of waits) g.set({ log: `tenant/${w.tenant_id}` }, w.seconds);
  };
  const backlog: Gauge<"log"> = new Gauge({
    name: "archivist_commit_backlog_seconds",
    help: "Seconds the oldest record of each log has waited for the committer since it was accepted (ARCHIVIST_COMMIT_MAX_DELAY_MS is the wait intended); a log with nothing waiting has no series",
    labelNames: ["log"],
    registers: [registry],
    async collect() {
      set(backlog, (await read()).uncommitted);
    },
  });
  const witnesses: Gauge<"log"> = new Gauge({
    name: "archivist_witness_lag_seconds",
    help: "Seconds the oldest checkpoint of each log has waited for a quorum of its witnesses (ARCHIVIST_WITNESSES) to cosign it; a log whose checkpoints are all witnessed has no series",
    labelNames: ["log"],
    registers: [registry],
    async collect() {
      set(witnesses, (await read()).unwitnessed);
    },
  });
}
