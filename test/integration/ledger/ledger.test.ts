import { describe, expect, it } from "vitest";
import { decodeSeal, verifySeal } from "../../../src/formats/cose/index.js";
import { verifyConsistency } from "../../../src/formats/mmr/index.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { until } from "../../helpers/poll.js";
import { createAsset, evidence, postEvent } from "../../helpers/records.js";
import { serviceForSuite } from "../../helpers/service.js";

const suite = serviceForSuite();

type Event = Record<string, unknown> & {
  identity: string;
  confirmation_status: string;
  merklelog_entry: { commit: { index: string; idtimestamp: string } | null };
};

async function bytes(res: Response): Promise<Uint8Array> {
  return new Uint8Array(await res.arrayBuffer());
}

async function eventWhen(identity: string, statuses: string[]): Promise<Event> {
  return until(async () => {
    const e = (await (
      await suite.s.api(`/archivist/v2/${identity}`, { token: suite.token })
    ).json()) as Event;
    return statuses.includes(e.confirmation_status) ? e : undefined;
  });
}

describe("the verifiable ledger", () => {
  let asset: { identity: string };
  let events: Event[] = [];

  it("moves records STORED → COMMITTED → CONFIRMED → UNEQUIVOCAL, asset status following", async () => {
    asset = await createAsset(suite.s, suite.token, { arc_display_type: "ledger" }, { public: true });
    for (let i = 0; i < 5; i++) {
      const res = await postEvent(
        suite.s,
        suite.token,
        asset.identity,
        evidence({ arc_display_type: "step", n: String(i) }),
      );
      const e = (await res.json()) as Event;
      expect(e.confirmation_status).toBe("STORED");
      events.push(e);
    }
    const committed = await eventWhen(events[0]?.identity ?? "", ["COMMITTED", "CONFIRMED", "UNEQUIVOCAL"]);
    expect(committed.merklelog_entry.commit?.idtimestamp).toMatch(/^01[0-9a-f]{16}$/);
    expect(Date.parse(String(committed.timestamp_committed))).toBeGreaterThan(0);
    await eventWhen(events[4]?.identity ?? "", ["CONFIRMED", "UNEQUIVOCAL"]);
    const final = await eventWhen(events[4]?.identity ?? "", ["UNEQUIVOCAL"]);
    expect(final.block_number).toBeGreaterThanOrEqual(0);
    const a = await until(async () => {
      const x = (await (
        await suite.s.api(`/archivist/v2/${asset.identity}`, { token: suite.token })
      ).json()) as {
        confirmation_status: string;
      };
      return x.confirmation_status === "UNEQUIVOCAL" ? x : undefined;
    });
    expect(a.confirmation_status).toBe("UNEQUIVOCAL");
    const trusted = (await (
      await suite.s.api(`/archivist/v2/${asset.identity}/events?minimum_trust=UNEQUIVOCAL`, {
        token: suite.token,
      })
    ).json()) as { events: Event[] };
    expect(trusted.events.length).toBe(6);
    events = trusted.events;
    // Trust above COMMITTED is derived from the covering seal and its anchoring: the entry's
    // parts must agree with each other and with the block fields.
    for (const e of trusted.events as Array<Event & Record<string, unknown>>) {
      const entry = e.merklelog_entry as unknown as {
        commit: { index: string };
        confirm: { mmr_size: string; root: string };
        unequivocal: { block_number: string; transaction_hash: string; mmr_size: string };
      };
      expect(Number(entry.confirm.mmr_size)).toBeGreaterThan(Number(entry.commit.index));
      expect(entry.confirm.root).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(entry.unequivocal.mmr_size).toBe(entry.confirm.mmr_size);
      expect(String(e.block_number)).toBe(entry.unequivocal.block_number);
      expect(e.transaction_id).toBe(entry.unequivocal.transaction_hash);
      expect(String(e.transaction_id)).toMatch(/^0x[0-9a-f]{64}$/);
    }
    const byStatus = async (q: string) =>
      (
        (await (
          await suite.s.api(`/archivist/v2/${asset.identity}/events?${q}`, { token: suite.token })
        ).json()) as {
          events: Event[];
        }
      ).events.length;
    expect(await byStatus("confirmation_status=UNEQUIVOCAL")).toBe(6);
    expect(await byStatus("confirmation_status=COMMITTED")).toBe(0);
    expect(await byStatus("minimum_trust=COMMITTED")).toBe(6);
    const assetsUnequivocal = (await (
      await suite.s.api(
        "/archivist/v2/assets?confirmation_status=UNEQUIVOCAL&attributes.arc_display_type=ledger",
        {
          token: suite.token,
        },
      )
    ).json()) as { assets: Array<{ identity: string }> };
    expect(assetsUnequivocal.assets.map((x) => x.identity)).toContain(asset.identity);
  });

  it("serves receipts that verify offline with the published keys, and fail for a changed record", async () => {
    const keys = keysFromKeySet(await bytes(await suite.s.api("/.well-known/scitt-keys")));
    expect(keys.size).toBeGreaterThan(0);
    for (const e of events) {
      const [, assetId, , eventId] = e.identity.split("/");
      const res = await suite.s.api(`/archivist/v1/receipts/assets/${assetId}/events/${eventId}`, {
        token: suite.token,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/cose");
      const receipt = await bytes(res);
      const verdict = verifyRecordReceipt(e, receipt, keys);
      expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true });
      const tampered = { ...e, event_attributes: { ...(e.event_attributes as object), n: "tampered" } };
      expect(verifyRecordReceipt(tampered, receipt, keys).ok).toBe(false);
      const publicRes = await suite.s.api(`/archivist/v1/receipts/assets/${assetId}/events/${eventId}`);
      expect(publicRes.status).toBe(200);
    }
  });

  it("proves consistency between any two seals and serves log entries", async () => {
    const tenant = String(events[0]?.tenant_identity).replace("tenant/", "");
    for (let i = 0; i < 3; i++) {
      await postEvent(suite.s, suite.token, asset.identity, evidence({ arc_display_type: "more" }));
      await suite.s.service.workers.flush();
    }
    const { mmr_sizes } = (await (await suite.s.api(`/archivist/v1/merklelogs/${tenant}/seals`)).json()) as {
      mmr_sizes: number[];
    };
    expect(mmr_sizes.length).toBeGreaterThanOrEqual(2);
    const keys = keysFromKeySet(await bytes(await suite.s.api("/.well-known/scitt-keys")));
    const seals = await Promise.all(
      mmr_sizes.map(async (n) =>
        bytes(await suite.s.api(`/archivist/v1/merklelogs/${tenant}/seals/latest?mmr_size=${n}`)),
      ),
    );
    for (const seal of seals) expect([...keys.values()].some((k) => verifySeal(seal, k))).toBe(true);
    const from = decodeSeal(seals[0] as Uint8Array);
    const to = decodeSeal(seals.at(-1) as Uint8Array);
    const proof = (await (
      await suite.s.api(
        `/archivist/v1/merklelogs/${tenant}/consistency?from=${from.mmrSize}&to=${to.mmrSize}`,
      )
    ).json()) as { paths: string[][] };
    const h = (x: string) => new Uint8Array(Buffer.from(x, "hex"));
    expect(
      verifyConsistency(
        from.mmrSize,
        to.mmrSize,
        from.peaks,
        to.peaks,
        proof.paths.map((p) => p.map(h)),
      ),
    ).toBe(true);
    const entry = (await (await suite.s.api(`/archivist/v1/merklelogs/${tenant}/entries/0`)).json()) as {
      leaf: string;
      path: string[];
      identity: string;
    };
    expect(entry.leaf).toMatch(/^[0-9a-f]{64}$/);
    expect((await suite.s.api(`/archivist/v1/merklelogs/${tenant}/consistency?from=5&to=2`)).status).toBe(
      400,
    );
  });

  it("names a log entry by either number: /entries by MMR position, /leaves by log entry (the leaf index)", async () => {
    const tenant = String(events[0]?.tenant_identity).replace("tenant/", "");
    await suite.s.service.workers.flush();
    type Entry = { mmr_index: number; leaf_index: number; identity: string; leaf: string };
    const get = async (path: string) => {
      const r = await suite.s.api(`/archivist/v1/merklelogs/${tenant}/${path}`, { token: suite.token });
      return { status: r.status, body: (await r.json()) as Entry & { message?: string } };
    };
    const byLeaf = new Map<number, Entry>();
    for (const e of events) {
      const mmr = Number(e.merklelog_entry.commit?.index);
      const at = await get(`entries/${mmr}`);
      expect(at.status).toBe(200);
      // A public asset's events are named by their public path.
      expect(at.body).toMatchObject({
        mmr_index: mmr,
        identity: e.identity.replace(/^assets\//, "publicassets/"),
      });
      // The same record, by its log entry: leaf L at MMR position 2L − popcount(L).
      const leaf = await get(`leaves/${at.body.leaf_index}`);
      expect(leaf).toMatchObject({ status: 200, body: at.body });
      byLeaf.set(at.body.leaf_index, at.body);
    }
    // A leaf whose two numbers differ: asking by the wrong numbering never names the record.
    const [L, entry] = [...byLeaf].find(([l, x]) => x.mmr_index !== l) as [number, Entry];
    expect((await get(`leaves/${entry.mmr_index}`)).body.identity ?? "").not.toBe(entry.identity);
    expect((await get(`entries/${L}`)).body.identity ?? "").not.toBe(entry.identity);
    // The log's last leaf is found by its log entry (size − 1), though that number as an MMR
    // position is another node.
    const size = Number(
      (await (await suite.s.api(`/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text()).split("\n")[1],
    );
    expect(size).toBeGreaterThan(3);
    const last = await get(`leaves/${size - 1}`);
    expect(last.status).toBe(200);
    expect(last.body.leaf_index).toBe(size - 1);
    const beyond = await get(`leaves/${size + 1000}`);
    expect(beyond).toMatchObject({
      status: 404,
      body: { message: `no log entry ${size + 1000} in the log` },
    });
    // MMR position 2 is the first interior node: no log entry is there.
    const interior = await get("entries/2");
    expect(interior).toMatchObject({
      status: 404,
      body: { message: expect.stringMatching(/^no log entry at MMR position 2 /) },
    });
  });

  it("shows the node, its blocks and each event's anchor transaction", async () => {
    const node = (await (
      await suite.s.api("/archivist/v1/archivistnode", { token: suite.token })
    ).json()) as {
      blockchain_nodes: Array<{ validator_pubkey: { d: string; x: string }; block_height: string }>;
    };
    // block_height names the last committed block (a count of blocks named the next one): that block exists.
    const height = node.blockchain_nodes[0]?.block_height as string;
    expect(height).toMatch(/^\d+$/);
    expect(Number(height)).toBeGreaterThan(0);
    expect(
      (await suite.s.api(`/archivist/v1/archivistnode/block?number=${height}`, { token: suite.token }))
        .status,
    ).toBe(200);
    const head = (await (
      await suite.s.api("/archivist/v1/archivistnode/block", { token: suite.token })
    ).json()) as {
      number: string;
    };
    expect(Number.parseInt(head.number, 16)).toBeGreaterThanOrEqual(Number(height));
    expect(node.blockchain_nodes[0]?.validator_pubkey.d).toBe("");
    expect(node.blockchain_nodes[0]?.validator_pubkey.x.length).toBeGreaterThan(10);
    expect(
      (await suite.s.api("/archivist/v1/archivistnode/block?number=0", { token: suite.token })).status,
    ).toBe(200);
    expect(
      (await suite.s.api("/archivist/v1/archivistnode/block?number=0x0", { token: suite.token })).status,
    ).toBe(200);
    const [, assetId, , eventId] = (events[0]?.identity ?? "").split("/");
    const txs = (await (
      await suite.s.api(`/archivist/v1alpha2/blockchain/assets/${assetId}/events/${eventId}`, {
        token: suite.token,
      })
    ).json()) as { transactions: unknown[] };
    expect(txs.transactions).toHaveLength(1);
  });

  it("anchors SIMPLE_HASH assets in windows that a verifier can recompute", async () => {
    const sh = await createAsset(
      suite.s,
      suite.token,
      { arc_display_type: "simple" },
      { proof_mechanism: "SIMPLE_HASH" },
    );
    await postEvent(suite.s, suite.token, sh.identity, evidence({ arc_display_type: "x" }));
    const evs = await until(async () => {
      const r = (await (
        await suite.s.api(`/archivist/v2/${sh.identity}/events`, { token: suite.token })
      ).json()) as {
        events: Event[];
      };
      return r.events.every((e) => e.confirmation_status === "CONFIRMED") ? r.events : undefined;
    });
    const [, assetId, , eventId] = (evs[0]?.identity ?? "").split("/");
    const txs = (await (
      await suite.s.api(`/archivist/v1alpha2/blockchain/assets/${assetId}/events/${eventId}`, {
        token: suite.token,
      })
    ).json()) as {
      transactions: Array<{
        kind: string;
        simple_hash_details: { api_query: string; anchor_hash: string; event_count: number };
      }>;
    };
    expect(txs.transactions[0]?.kind).toBe("SIMPLE_HASH");
    const details = txs.transactions[0]?.simple_hash_details;
    const window = (await (await suite.s.api(details?.api_query ?? "", { token: suite.token })).json()) as {
      events: Array<Record<string, unknown>>;
    };
    expect(window.events).toHaveLength(details?.event_count ?? -1);
    const { simpleHashAnchor } = await import("../../../src/formats/ledger/index.js");
    expect(simpleHashAnchor(window.events as never, 3)).toBe(details?.anchor_hash);
  });
});
