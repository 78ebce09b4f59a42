import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IndexLookup } from "../../../src/formats/vindex/lookup-format.js";
import { verifyLookup } from "../../../src/verify/vindex/lookup.js";
import { applicationSubject, grantAccess } from "../../helpers/access-policy.js";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { createAsset } from "../../helpers/records.js";
import { plainApplication, startTestService, type TestService } from "../../helpers/service.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";

let s: TestService;
let token: string;
let tenant: string;
let asset: string;
const vcon = crypto.randomUUID();

async function lookup(key: string, tok = token) {
  const res = await s.api(`/archivist/v1/vindex/lookup?key=${encodeURIComponent(key)}`, { token: tok });
  return { status: res.status, body: (await res.json()) as IndexLookup & { code?: string } };
}

const readOf = (types: string[]) => ({
  asset_attributes_read: ["arc_display_type", "team"],
  event_arc_display_type_read: types,
  behaviours: [],
  event_arc_display_type_write: [],
  asset_attributes_write: [],
});

const logKey = async () => (await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
  const created = await createAsset(s, token, { arc_display_type: "vcon", team: "blue" });
  asset = created.identity;
  tenant = created.tenant_identity.replace("tenant/", "");
  for (const [i, op] of ["vcon_create", "vcon_update", "vcon_revoke"].entries())
    await s.api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      token,
      json: vconEvent(vcon, op, `2025-03-0${i + 1}`),
    });
  await untilSealed(s, token, asset);
}, 120_000);
afterAll(() => s?.stop());

describe(`the verifiable index's lookups (${testEngine()})`, () => {
  it("answers a vCon's entries with proofs a verifier checks against the log key", async () => {
    const found = await until(async () => {
      const r = await lookup(`vcon://${vcon.toUpperCase()}`);
      return r.status === 200 && r.body.indices.length === 3 ? r : undefined;
    });
    expect(found.body.key).toBe(`vcon://${vcon}`);
    const v = verifyLookup(found.body, await logKey());
    expect(v).toMatchObject({ ok: true, present: true, indices: found.body.indices });
  });

  it("proves the absence of a key with no records", async () => {
    const r = await lookup(`vcon://${crypto.randomUUID()}`);
    expect(r.status).toBe(200);
    expect(r.body.indices).toEqual([]);
    expect(verifyLookup(r.body, await logKey())).toMatchObject({ ok: true, present: false });
  });

  it("files the asset's events under the asset, its creation included", async () => {
    const r = await lookup(asset);
    expect(r.status).toBe(200);
    expect(r.body.indices.length).toBeGreaterThanOrEqual(4);
    expect(verifyLookup(r.body, await logKey())).toMatchObject({ ok: true, present: true });
  });

  it("is refused by a verifier when an entry is dropped from the list", async () => {
    const r = await lookup(`vcon://${vcon}`);
    const cut = { ...r.body, indices: r.body.indices.slice(0, -1) };
    expect(verifyLookup(cut, await logKey())).toMatchObject({ ok: false });
  });

  it("answers a reader that may not read every entry as if the key had none; one that may, in full", async () => {
    const partial = await plainApplication(s, token, { display_name: "reads two of three" });
    await grantAccess(s, token, "two of three", "attributes.team=blue", {
      ...readOf(["vcon_create", "vcon_update"]),
      ...applicationSubject(partial.clientId),
    });
    const present = await lookup(`vcon://${vcon}`, partial.token);
    const absent = await lookup(`vcon://${crypto.randomUUID()}`, partial.token);
    expect([present.status, absent.status]).toEqual([404, 404]);
    expect(present.body).toEqual(absent.body);
    const full = await plainApplication(s, token, { display_name: "reads all three" });
    await grantAccess(s, token, "all three", "attributes.team=blue", {
      ...readOf(["vcon_create", "vcon_update", "vcon_revoke"]),
      ...applicationSubject(full.clientId),
    });
    const whole = await lookup(`vcon://${vcon}`, full.token);
    expect(whole.status).toBe(200);
    expect(whole.body.indices.length).toBe(3);
  });

  it("gives the positions of keys to a caller granted the whole tenancy only", async () => {
    const reader = await plainApplication(s, token, { display_name: "no grant" });
    const ask = (tok: string) =>
      s.api("/archivist/v1/vindex/positions", {
        method: "POST",
        token: tok,
        json: { keys: [`vcon://${vcon}`] },
      });
    expect((await ask(reader.token)).status).toBe(403);
    const ok = await ask(token);
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { positions: Array<{ key: string; vrf_proof: string }> };
    expect(body.positions[0]?.key).toBe(`vcon://${vcon}`);
  });

  it("publishes the output log: its checkpoint, revisions and consistency proofs", async () => {
    const revs = (await (await s.api(`/archivist/v1/merklelogs/${tenant}/vindex/revisions`)).json()) as {
      size: number;
      revisions: Array<{ seq: number; log_size: number }>;
    };
    expect(revs.size).toBeGreaterThan(0);
    expect(revs.revisions.map((r) => r.seq)).toEqual([...Array(revs.size).keys()]);
    const note = await (await s.api(`/archivist/v1/merklelogs/${tenant}/vindex/checkpoint`)).text();
    expect(note.split("\n")[0]).toMatch(new RegExp(`/merklelogs/${tenant}/vindex$`));
    if (revs.size > 1) {
      const c = await s.api(`/archivist/v1/merklelogs/${tenant}/vindex/consistency?from=1&to=${revs.size}`);
      expect(c.status).toBe(200);
    }
  });

  it("refuses a key of no kind the index files with 400", async () => {
    const r = await lookup("tel:+15551234567");
    expect(r.status).toBe(400);
    expect(r.body.code).toBeDefined();
  });
});
