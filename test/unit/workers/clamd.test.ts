import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ClamdError, clamdScan, parseClamdReply } from "../../../src/workers/clamd.js";
import { type FakeClamdOptions, startFakeClamd } from "./fake-clamd.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function tcpClamd(options: FakeClamdOptions = {}) {
  const fake = await startFakeClamd(0, options);
  cleanups.push(fake.close);
  return fake;
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as ClamdError,
  );

describe("clamdScan", () => {
  it("streams the bytes in length-prefixed chunks and reads OK", async () => {
    const fake = await tcpClamd();
    const bytes = Buffer.alloc(200_000, 0x61);
    const verdict = await clamdScan(bytes, { host: "127.0.0.1", port: fake.port }, 5_000);
    expect(verdict).toEqual({ status: "SCANNED_OK", reason: "ClamAV: no threat found" });
    expect(fake.log).toHaveLength(1);
    expect(fake.log[0]?.command).toBe("zINSTREAM");
    expect(fake.log[0]?.chunks).toBe(4);
    expect(fake.log[0]?.stream.equals(bytes)).toBe(true);
  });

  it("reports a signature found", async () => {
    const fake = await tcpClamd({ marker: "nasty" });
    const verdict = await clamdScan(Buffer.from("a nasty thing"), { port: fake.port }, 5_000);
    expect(verdict).toEqual({ status: "SCANNED_BAD", reason: "ClamAV: Test.Marker" });
  });

  it("works over a unix socket, and with an empty stream", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clamd-"));
    const path = join(dir, "clamd.sock");
    const fake = await startFakeClamd(path);
    cleanups.push(fake.close, () => rmSync(dir, { recursive: true, force: true }));
    expect((await clamdScan(new Uint8Array(0), { path }, 5_000)).status).toBe("SCANNED_OK");
    expect(fake.log[0]?.chunks).toBe(0);
  });

  it("rejects with clamd's own error, such as its size limit", async () => {
    const fake = await tcpClamd({ maxBytes: 1000 });
    const error = await rejection(clamdScan(Buffer.alloc(500_000), { port: fake.port }, 5_000));
    expect(error).toBeInstanceOf(ClamdError);
    expect(error.code).toBe("clamd_error");
    expect(error.message).toBe("clamd: INSTREAM size limit exceeded. ERROR");
  });

  it("times out when clamd does not answer", async () => {
    const fake = await tcpClamd({ silent: true });
    const error = await rejection(clamdScan(Buffer.from("x"), { port: fake.port }, 100));
    expect(error.code).toBe("clamd_timeout");
  });

  it("rejects when nothing listens", async () => {
    const fake = await startFakeClamd(0);
    await fake.close();
    const error = await rejection(clamdScan(Buffer.from("x"), { port: fake.port }, 5_000));
    expect(error.code).toBe("clamd_unreachable");
  });

  it("rejects an answer that is no verdict", async () => {
    const fake = await tcpClamd({ reply: "PONG\0" });
    const error = await rejection(clamdScan(Buffer.from("x"), { port: fake.port }, 5_000));
    expect(error.code).toBe("clamd_protocol");
  });
});

describe("parseClamdReply", () => {
  it.each([
    ["stream: OK\0", "SCANNED_OK", "ClamAV: no threat found"],
    ["stream: Win.Test.EICAR_HDB-1 FOUND\0", "SCANNED_BAD", "ClamAV: Win.Test.EICAR_HDB-1"],
    ["1: stream: Eicar-Signature FOUND\n", "SCANNED_BAD", "ClamAV: Eicar-Signature"],
  ])("%j", (reply, status, reason) => {
    expect(parseClamdReply(reply)).toEqual({ status, reason });
  });
});
