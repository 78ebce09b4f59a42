import { Writable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { logRequest, requestIdOptions, requestLogger } from "../../../src/http/request-log.js";

/** A logger at `info` whose lines are kept, parsed. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: pino({ level: "info" }, sink), lines };
}

const req = (url: string, headers: Record<string, string> = {}) =>
  ({ id: "trace-7", url, originalUrl: url, method: "POST", headers }) as unknown as FastifyRequest;
const res = { statusCode: 201, elapsedTime: 3.6 } as unknown as FastifyReply;

describe("the request log", () => {
  it("writes one line per answered request, named by the request's id", () => {
    const { log, lines } = capture();
    logRequest(log, req("/archivist/v2/assets?x=1", { "datatrails-user-agent": "sdk/1" }), res);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: "request completed",
      reqId: "trace-7",
      req: { method: "POST", url: "/archivist/v2/assets?x=1" },
      res: { statusCode: 201 },
      responseTime: 4,
      userAgent: "sdk/1",
    });
  });

  it("leaves out the probes' and scrapers' requests", () => {
    const { log, lines } = capture();
    logRequest(log, req("/healthz"), res);
    logRequest(log, req("/metrics"), res);
    expect(lines).toHaveLength(0);
  });

  it("names the request in the lines written while handling it", () => {
    const { log, lines } = capture();
    requestLogger(log, req("/x")).error("boom");
    expect(lines[0]).toMatchObject({ reqId: "trace-7", req: { method: "POST", url: "/x" }, msg: "boom" });
  });

  it("takes the caller's x-request-id, else a fresh UUID each time", () => {
    expect(requestIdOptions.requestIdHeader).toBe("x-request-id");
    const a = requestIdOptions.genReqId();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdOptions.genReqId()).not.toBe(a);
  });
});
