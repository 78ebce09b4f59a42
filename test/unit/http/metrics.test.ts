import { describe, expect, it } from "vitest";
import { createMetrics } from "../../../src/http/metrics.js";

/** The metric names a registry would expose, in its text format. */
async function names(served: boolean): Promise<string[]> {
  const m = createMetrics(undefined, undefined, undefined, served);
  const text = await m.registry.metrics();
  return [...text.matchAll(/^# TYPE (\S+)/gm)].map((x) => x[1] as string);
}

describe("the service's metrics registry", () => {
  it("collects the process's own metrics (event-loop lag, GC, memory) when someone may read them", async () => {
    const served = await names(true);
    expect(served).toContain("nodejs_eventloop_lag_seconds");
    expect(served).toContain("process_resident_memory_bytes");
    expect(served).toContain("archivist_http_requests_total");
  });

  it("keeps no event-loop monitor or GC observer when no metrics token is set, only its own counters", async () => {
    const unserved = await names(false);
    expect(unserved.filter((n) => n.startsWith("nodejs_") || n.startsWith("process_"))).toEqual([]);
    expect(unserved).toContain("archivist_http_requests_total");
    expect(unserved).toContain("archivist_http_request_seconds");
  });
});
