import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { conserverCli, vconConcurrencyOf } from "../../../plugins/conserver/cli.js";
import { progressBar } from "../../../plugins/conserver/demo/progress.js";
import { scittFromEnv } from "../../../plugins/conserver/links/scitt-env.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out, err };
}

describe("conserverCli", () => {
  it("prints usage for --help (0) and for unknown commands or flags (64, archivist's usage status)", async () => {
    const c = capture();
    expect(await conserverCli(["--help"], c.io)).toBe(0);
    expect(c.out.join("")).toContain("dlq retry");
    expect(await conserverCli([], c.io)).toBe(64);
    expect(await conserverCli(["dlq", "purge"], c.io)).toBe(64);
    expect(await conserverCli(["run", "--nope"], c.io)).toBe(64);
    expect(c.err.join("")).toContain("usage: archivist conserver");
  });

  it("answers each subcommand's --help with its own usage, not the other's", async () => {
    const help = async (args: string[]) => {
      const c = capture();
      expect(await conserverCli(args, c.io), args.join(" ")).toBe(0);
      return c.out.join("");
    };
    const [run, dlq, dlqList] = [
      await help(["run", "--help"]),
      await help(["dlq", "--help"]),
      await help(["dlq", "list", "-h"]),
    ];
    expect(run).not.toBe(dlq);
    expect(run).toMatch(/^usage: archivist conserver run/);
    expect(run).toContain("--links-only");
    expect(run).not.toContain("dlq retry");
    expect(dlq).toMatch(/^usage: archivist conserver dlq/);
    expect(dlq).toContain("dlq retry");
    expect(dlq).not.toContain("--vcon-concurrency");
    expect(dlqList).toBe(dlq);
  });

  it("requires --config for run", async () => {
    const c = capture();
    expect(await conserverCli(["run"], c.io)).toBe(64);
    expect(c.err.join("")).toContain("--config <file> is required");
  });

  it("takes the link runtime's concurrency from --vcon-concurrency, else vcon-server's CONSERVER_VCON_CONCURRENCY", () => {
    expect(vconConcurrencyOf(undefined, undefined)).toBeUndefined();
    expect(vconConcurrencyOf(undefined, "")).toBeUndefined();
    expect(vconConcurrencyOf(undefined, "16")).toBe(16);
    expect(vconConcurrencyOf("64", "16")).toBe(64);
    expect(() => vconConcurrencyOf("0", undefined)).toThrow(/--vcon-concurrency/);
    expect(() => vconConcurrencyOf(undefined, "lots")).toThrow(/CONSERVER_VCON_CONCURRENCY/);
  });

  it("refuses a bad --vcon-concurrency before starting anything, as a usage error", async () => {
    const c = capture();
    expect(await conserverCli(["run", "--config", "conserver.yml", "--vcon-concurrency", "0"], c.io)).toBe(
      64,
    );
    expect(c.err.join("")).toMatch(/--vcon-concurrency: must be a whole number >= 1, not 0/);
  });

  it("refuses a bad --limit before touching Redis, as a usage error", async () => {
    const c = capture();
    expect(await conserverCli(["dlq", "list", "--limit", "0"], c.io)).toBe(64);
    expect(c.err.join("")).toMatch(/--limit: must be a whole number >= 1, not 0/);
  });
});

describe("demo progressBar", () => {
  it("fills in proportion and pads the count", () => {
    expect(progressBar(0, 10, 10)).toBe("[----------]  0/10");
    expect(progressBar(5, 10, 10)).toBe("[#####-----]  5/10");
    expect(progressBar(10, 10, 10)).toBe("[##########] 10/10");
  });
});

describe("scittFromEnv", () => {
  it("is undefined when nothing is set, names what is missing, and builds a signer that signs", async () => {
    expect(scittFromEnv({})).toBeUndefined();
    expect(() => scittFromEnv({ CONSERVER_SCITT_KID: "k" })).toThrow(/CONSERVER_SCITT_KEY_FILE/);
    const dir = mkdtempSync(join(tmpdir(), "scitt-env-"));
    const key = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    writeFileSync(join(dir, "key.pem"), key.export({ format: "pem", type: "pkcs8" }));
    const env = {
      CONSERVER_SCITT_KEY_FILE: join(dir, "key.pem"),
      CONSERVER_SCITT_KID: "k1",
      CONSERVER_SCITT_ISSUER: "https://conserver.test",
      CONSERVER_SCITT_URL: "http://127.0.0.1:1/",
      CONSERVER_SCITT_CLIENT_ID: "id",
      CONSERVER_SCITT_CLIENT_SECRET: "secret",
    };
    const scitt = scittFromEnv(env);
    const statement = await scitt?.signer.sign({
      arc_display_type: "vcon_created",
      vcon_operation: "vcon_created",
      payload: "a".repeat(64),
      payload_hash_alg: "SHA-256",
      payload_preimage_content_type: "application/vcon+json",
      subject: "vcon://0190b6a1-0000-7000-8000-000000000001",
      timestamp_declared: "2025-01-01T00:00:00Z",
      vcon_draft_version: "01",
      scitt_draft_version: "10",
    });
    expect(statement?.length).toBeGreaterThan(64);
    expect(() => scittFromEnv({ ...env, CONSERVER_SCITT_KEY_FILE: join(dir, "none.pem") })).toThrow(
      /CONSERVER_SCITT_KEY_FILE/,
    );
  });
});
