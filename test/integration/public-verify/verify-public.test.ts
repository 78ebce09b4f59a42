import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Command } from "../../../src/cli/command.js";
import {
  verifyDocumentCommand,
  verifyPublicCommand,
  verifyVconCommand,
} from "../../../src/cli/verify-public.js";
import { runCli } from "../../helpers/cli-output.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { type Published, publishFixtures, sha256 } from "./publish.js";

let s: TestService;
let p: Published;
const dir = mkdtempSync(join(tmpdir(), "verify-public-"));
const keys = join(dir, "keys.cbor");
const file = (name: string, bytes: Uint8Array) => {
  writeFileSync(join(dir, name), bytes);
  return join(dir, name);
};

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  p = await publishFixtures(s);
  // The relying party's copy of the service's keys (obtained out of band in real life).
  writeFileSync(keys, new Uint8Array(await (await fetch(`${s.url}/.well-known/scitt-keys`)).arrayBuffer()));
}, 60_000);
afterAll(() => s?.stop());

const cli = (cmd: Command, args: string[]) => runCli((a) => cmd.run(a), args);

describe("archivist verify document", () => {
  it("verifies a published version, reports who published it, and fails for a changed byte", async () => {
    // Checked with the keys the service serves: self-consistent only.
    const served = await cli(verifyDocumentCommand, [file("v2.txt", p.live.v2), "--url", s.url]);
    expect(served, served.out).toMatchObject({ code: 2 });
    expect(served.out).toMatch(/^SELF-CONSISTENT, KEYS NOT PINNED: published as version 2/m);
    const ok = await cli(verifyDocumentCommand, [file("v2.txt", p.live.v2), "--url", s.url, "--keys", keys]);
    expect(ok, ok.out).toMatchObject({ code: 0 });
    expect(ok.out).toMatch(/version 2: Published/);
    expect(ok.out).toMatch(/by Policy Team \(accepted for .+\)/);
    expect(ok.out).toMatch(/receipt OK/);
    expect(ok.out).toMatch(/^VERIFIED \(keys pinned, not witnessed\): published as version 2/m);
    const changed = p.live.v2.slice();
    changed[0] = (changed[0] ?? 0) ^ 1;
    const bad = await cli(verifyDocumentCommand, [
      file("changed.txt", changed),
      "--url",
      s.url,
      "--keys",
      keys,
    ]);
    expect(bad.code).toBe(4);
    expect(bad.out).toMatch(/^CANNOT EVALUATE: no public document version carries this hash/m);
  });

  it("reports a superseded version as published and a withdrawn one as withdrawn (exit 1), in JSON", async () => {
    const old = await cli(verifyDocumentCommand, [
      sha256(p.live.v1),
      "--url",
      s.url,
      "--keys",
      keys,
      "--json",
    ]);
    const r = JSON.parse(old.out) as { ok: boolean; matches: Array<Record<string, unknown>> };
    expect(old.code).toBe(0);
    expect(r.matches).toHaveLength(1);
    expect(r.matches[0]).toMatchObject({
      asset: `publicassets/${p.live.asset.split("/")[1]}`,
      version: "1",
      status: "Published",
      current: false,
      superseded_by: "2",
      receipt: { ok: true },
    });
    expect(r.matches[0]?.principal_accepted).toBeTypeOf("object");
    const gone = await cli(verifyPublicCommand, [
      "document",
      file("old.txt", p.withdrawn.file),
      "--url",
      s.url,
      "--keys",
      keys,
      "--json",
    ]);
    const g = JSON.parse(gone.out) as {
      ok: boolean;
      verdict: string;
      matches: Array<Record<string, unknown>>;
    };
    expect(gone.code).toBe(3);
    expect(g).toMatchObject({
      kind: "document",
      ok: false,
      code: "policy-failed",
      sha256: sha256(p.withdrawn.file),
    });
    expect(g.verdict).toMatch(/^WITHDRAWN/);
    expect(g.matches[0]).toMatchObject({ status: "Withdrawn", withdrawal: { receipt: { ok: true } } });
    expect(g.matches[0]?.withdrawn_at).toMatch(/^\d{4}-/);
  });

  it("a usage error exits 64 and says the usage; a file it cannot read is cannot-evaluate (4)", async () => {
    const usage = await cli(verifyDocumentCommand, ["x"]);
    expect(usage.code).toBe(64);
    expect(usage.err).toMatch(/usage: archivist verify document/);
    const json = await cli(verifyDocumentCommand, ["--json", "nope.txt", "--url", s.url]);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.out)).toMatchObject({
      ok: false,
      code: "cannot-evaluate",
      problems: [expect.any(String)],
    });
  });
});

describe("archivist verify vcon", () => {
  it("lists the trail oldest first and names the operation that recorded the file", async () => {
    const r = await cli(verifyVconCommand, [
      file("vcon.json", p.vcon.created),
      "--url",
      s.url,
      "--keys",
      keys,
      "--json",
    ]);
    expect(r.code, r.out).toBe(0);
    const report = JSON.parse(r.out) as {
      ok: boolean;
      matched_operation: string;
      hashes: Array<{ form: string; sha256: string }>;
      trail: Array<{ operation: string; matches: string[]; receipt: { ok: boolean } }>;
    };
    expect(report.matched_operation).toBe("vcon_created");
    expect(report.hashes[0]).toEqual({ form: "raw", sha256: sha256(p.vcon.created) });
    expect(report.hashes.map((h) => h.form)).toEqual(["raw", "python-json"]);
    expect(report.trail.map((t) => t.operation)).toEqual(["vcon_created", "vcon_updated"]);
    expect(report.trail.map((t) => t.matches)).toEqual([["raw"], []]);
    expect(report.trail.every((t) => t.receipt.ok)).toBe(true);
    // The update was recorded over the Python json.dumps form, not the raw bytes.
    const upd = await cli(verifyVconCommand, [file("upd.json", p.vcon.updated), "--url", s.url, "--json"]);
    const u = JSON.parse(upd.out) as typeof report;
    expect(u.matched_operation).toBe("vcon_updated");
    expect(u.trail.map((t) => t.matches)).toEqual([[], ["python-json"]]);
    const text = await cli(verifyPublicCommand, [
      "vcon",
      `vcon://${p.vcon.uuid}`,
      "--url",
      s.url,
      "--keys",
      keys,
    ]);
    expect(text.code, text.out).toBe(0);
    expect(text.out).toMatch(/1\. .*vcon_created \[(CONFIRMED|UNEQUIVOCAL)\]/);
    expect(text.out.indexOf("vcon_created")).toBeLessThan(text.out.indexOf("vcon_updated"));
  });

  it("fails for a changed vCon and for an unknown uuid", async () => {
    const changed = new TextEncoder().encode(new TextDecoder().decode(p.vcon.updated).replace("Ann", "Bob"));
    const bad = await cli(verifyVconCommand, [file("changed.json", changed), "--url", s.url, "--keys", keys]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^TAMPERED: the file's hash is not any recorded version/m);
    const none = await cli(verifyVconCommand, [crypto.randomUUID(), "--url", s.url, "--json"]);
    expect(none.code).toBe(4);
    expect(JSON.parse(none.out)).toMatchObject({ kind: "vcon", ok: false, trail: [] });
    // A private vCon is not listed publicly: the answer says what checks it instead.
    const said = await cli(verifyVconCommand, [crypto.randomUUID(), "--url", s.url]);
    expect(said.code).toBe(4);
    expect(said.out).toMatch(
      /^CANNOT EVALUATE: no public records for vcon:\/\/[0-9a-f-]{36}; a vCon recorded privately/m,
    );
    expect(said.out).toContain("with a token that may read it");
    expect(said.out).toContain("with its evidence bundle");
    expect(said.out).toContain("public_assets: true");
  });
});
