import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mirrorCommand } from "../../../src/cli/mirror.js";
import { verifyCommand } from "../../../src/cli/verify.js";
import { rootFromTilesBySpec, verifyCheckpointNote } from "../../helpers/c2sp-client.js";
import { runCli } from "../../helpers/cli-output.js";
import { until } from "../../helpers/poll.js";
import { createAsset, evidence, postEvent } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

let s: TestService;
let token: string;
let tenant: string;
let prefix: string;
const dir = mkdtempSync(join(tmpdir(), "tlog-mirror-"));
let record: Record<string, unknown>;

const cli = runCli;

const EVENTS = 270;

beforeAll(async () => {
  s = await startTestService();
  token = await s.token(s.a);
  const asset = await createAsset(s, token, { arc_display_type: "tiles" });
  tenant = asset.tenant_identity.replace("tenant/", "");
  prefix = `${s.url}/archivist/v1/merklelogs/${tenant}/tlog`;
  const ids: string[] = [];
  for (let round = 0; round < EVENTS / 30; round++)
    ids.push(
      ...(await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const res = await postEvent(
            s,
            token,
            asset.identity,
            evidence({ arc_display_type: "tile", n: String(round * 30 + i) }),
          );
          return ((await res.json()) as { identity: string }).identity;
        }),
      )),
    );
  // Under load a seal may land between two commits of the batch: flush until the published
  // checkpoint covers every leaf (the asset's creation and the events).
  await until(async () => {
    await s.service.workers.flush();
    const text = await (await fetch(`${prefix}/checkpoint`)).text();
    return Number(text.split("\n")[1]) === EVENTS + 1 ? true : undefined;
  }, 60_000);
  record = (await (await s.api(`/archivist/v2/${ids[200]}`, { token })).json()) as Record<string, unknown>;
}, 120_000);
afterAll(() => s?.stop());

describe("C2SP tlog-tiles of a tenancy's log", () => {
  it("serves a checkpoint that verifies against the published key, and tiles a spec-only client recomputes it from", async () => {
    const key = await (await fetch(`${prefix}/key`)).text();
    const res = await fetch(`${prefix}/checkpoint`);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=2");
    const cp = verifyCheckpointNote(await res.text(), key);
    const host = new URL(s.url).host;
    expect(cp.origin).toBe(`${host}/archivist/v1/merklelogs/${tenant}/tlog`);
    expect(cp.keyName).toBe(cp.origin);
    // The asset's creation is a leaf too.
    expect(cp.size).toBe(EVENTS + 1);
    const { root, entries, fullTileHeaders } = await rootFromTilesBySpec(prefix, cp.size);
    expect(Buffer.from(root).toString("base64")).toBe(Buffer.from(cp.root).toString("base64"));
    expect(entries.every((e) => e.length === 32)).toBe(true);
    expect(fullTileHeaders?.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(fullTileHeaders?.get("content-type")).toBe("application/octet-stream");
  });

  it("answers 404 for tiles beyond the checkpoint, malformed tile names and unknown logs", async () => {
    for (const path of [
      "tile/0/001",
      "tile/0/001.p/16",
      "tile/1/000",
      "tile/0/1",
      "tile/0/x000/001",
      "tile/entries/002",
    ])
      expect((await fetch(`${prefix}/${path}`)).status, path).toBe(404);
    const other = `${s.url}/archivist/v1/merklelogs/00000000-0000-4000-8000-000000000000/tlog`;
    expect((await fetch(`${other}/checkpoint`)).status).toBe(404);
    expect((await fetch(`${other}/key`)).status).toBe(404);
    expect((await fetch(`${other}/tile/0/000.p/1`)).status).toBe(404);
    const body = (await (await fetch(`${prefix}/tile/9/000`)).json()) as { code: string };
    expect(body.code).toBeDefined();
  });

  it("mirrors the log to files and verifies a record against the mirror with the service stopped", async () => {
    const m = await cli((a) => mirrorCommand.run(a), [prefix, dir]);
    expect(m, m.out).toMatchObject({ code: 0 });
    expect(m.out).toMatch(/^OK mirrored 271 entries/);
    const again = await cli((a) => mirrorCommand.run(a), [prefix, dir]);
    // Full tiles are kept; only the partial ones are fetched again.
    expect(again.out).toMatch(/\(3 tiles fetched\)/);
    writeFileSync(join(dir, "record.json"), JSON.stringify(record));
    writeFileSync(
      join(dir, "tampered.json"),
      JSON.stringify({ ...record, event_attributes: { arc_display_type: "tile", n: "999" } }),
    );
    // The relying party's copy of the log's key, obtained apart from the mirror.
    const vkey = join(tmpdir(), `log-${tenant}.vkey`);
    writeFileSync(vkey, await (await fetch(`${prefix}/key`)).text());
    await s.stop();
    // The mirror's own key shows only that the mirror is self-consistent.
    const own = await cli((a) => verifyCommand.run(a), [join(dir, "record.json"), "--mirror", dir]);
    expect(own, own.out).toMatchObject({ code: 2 });
    expect(own.out).toMatch(
      /^SELF-CONSISTENT, KEYS NOT PINNED: assets\/.* is log entry \d+ of .*, under its checkpoint of 271 entries/m,
    );
    expect(own.out).toMatch(/key log-key .*\/tlog: .*\/tlog\+[0-9a-f]{8}\+/);
    const ok = await cli(
      (a) => verifyCommand.run(a),
      [join(dir, "record.json"), "--mirror", dir, "--log-key", vkey],
    );
    expect(ok, ok.out).toMatchObject({ code: 0 });
    expect(ok.out).toMatch(
      /^VERIFIED \(keys pinned, not witnessed\): assets\/.* is log entry \d+ of .*, under its checkpoint of 271 entries/m,
    );
    const bad = await cli(
      (a) => verifyCommand.run(a),
      [join(dir, "tampered.json"), "--mirror", dir, "--log-key", vkey],
    );
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^TAMPERED: .*does not hold this record/m);
    // A mirror whose tile was altered fails the same check.
    writeFileSync(join(dir, "tile/0/000"), Buffer.alloc(8192));
    const broken = await cli(
      (a) => verifyCommand.run(a),
      [join(dir, "record.json"), "--mirror", dir, "--log-key", vkey],
    );
    expect(broken.code).toBe(1);
  });
});
