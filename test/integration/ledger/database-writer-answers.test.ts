import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Ctx } from "../../../src/context.js";
import { decodeCbor } from "../../../src/formats/cbor/index.js";
import { leafCount } from "../../../src/formats/mmr/index.js";
import { entryOfRecord } from "../../../src/store/ledger/ledger.js";
import { getSeal } from "../../../src/store/ledger/seals.js";
import { latestCheckpoint } from "../../../src/store/ledger/tlog-checkpoints.js";
import { verifyStatement } from "../../../src/verify/index.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { until } from "../../helpers/poll.js";
import { cose, entryOf, statementOf, trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { newAsset, postVconEvent } from "../../helpers/vcon-event.js";
import { vectorPublicKey } from "../../helpers/vector-key.js";

/*
 * Issue 71: what a writer of the live database leaves behind once its rows are put back, and
 * how the receipt routes answer rows that no longer make a record. A leaf read while rewritten
 * is not kept (the next request, after the restore, gets its receipt); a record moved to another
 * log or nodes deleted under a seal are refused as every other such row is (503, the service's
 * error shape, counted in /metrics), never a 500; a registered statement's stored bytes swapped
 * for another genuine statement are not served with the record's receipt.
 */
const METRICS = "metrics-token";
const tenant = randomUUID();
let s: TestService;
let ctx: Ctx;
let ta: string;
let tb: string;
let asset: string;
let events: string[] = [];
/** Two registered statements' entry ids (`events_<uuid>`) and record ids, in their order. */
const entries: string[] = [];
let statements: Uint8Array[] = [];

beforeAll(async () => {
  // Seals only when a test asks (workers.flush): nothing signs while a row is altered.
  s = await startTestService(
    {
      ARCHIVIST_SEAL_INTERVAL_MS: "3600000",
      ARCHIVIST_SCRAPI_WAIT_MS: "0",
      ARCHIVIST_METRICS_TOKEN: METRICS,
    },
    {},
    {},
    { a: tenant },
  );
  ctx = s.service.ctx;
  ta = await s.token(s.a);
  tb = await s.token(s.b);
  await trustVectorKey(s, ta);
  asset = await newAsset(s, ta);
  for (let i = 0; i < 5; i++)
    events.push((await postVconEvent(s, ta, asset, randomUUID(), "vcon_create", "2026-11-01")).identity);
  events = events.map((id) => id.split("/").pop() as string);
  statements = [statementOf(71), statementOf(72)];
  for (const st of statements) {
    const res = await s.api(`/tenants/${tenant}/entries`, cose(st, ta));
    expect([201, 202, 303], await res.clone().text()).toContain(res.status);
    entries.push(entryOf(res));
  }
  const records = [...events, ...entries.map(recordOf)];
  await until(async () => {
    await s.service.workers.flush();
    const seal = await getSeal(ctx.db, tenant);
    const cp = await latestCheckpoint(ctx.db, tenant);
    const all = await Promise.all(records.map((id) => entryOfRecord(ctx.db, id)));
    return seal &&
      cp &&
      cp.size === leafCount(seal.mmr_size) &&
      all.every((e) => e && e.mmr_index < seal.mmr_size)
      ? true
      : undefined;
  });
}, 120_000);
afterAll(() => s?.stop());

const recordOf = (entry: string) => entry.replace(/^events_/, "");
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

/** A fresh process's view of receipts: nothing checked or signed before is answered from memory. */
function forget(): void {
  ctx.caches.receipts.clear();
  ctx.caches.entries.clear();
  ctx.caches.latestSeals.clear();
  ctx.caches.eventFacts.clear();
}

async function refusals(): Promise<Record<string, number>> {
  const text = await (await s.api("/metrics", { headers: { authorization: `Bearer ${METRICS}` } })).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/archivist_signing_refused_total\{what="(\w+)"\} (\d+)/g))
    out[m[1] as string] = Number(m[2]);
  return out;
}

async function keys() {
  return keysFromKeySet(await bytes(await s.api("/.well-known/scitt-keys")));
}

/** The receipt of `id` in `profile`, checked against its record as a verifier checks it. */
async function receiptVerifies(id: string, profile: "mmr" | "rfc9162"): Promise<void> {
  const r = await s.api(`/archivist/v1/receipts/events/${id}?profile=${profile}`, { token: ta });
  expect(r.status, await r.clone().text()).toBe(200);
  const record = await (
    await s.api(`/archivist/v2/assets/${asset.split("/").pop()}/events/${id}`, { token: ta })
  ).json();
  const v = verifyRecordReceipt(record, await bytes(r), await keys());
  expect(v.ok, JSON.stringify(v)).toBe(true);
}

type Sql = [sql: string, params: unknown[]];

/** Runs `alter`, then `check`, and always `restore`. */
async function whileAltered(alter: Sql, restore: Sql, check: () => Promise<void>) {
  await ctx.db.query(...alter);
  try {
    await check();
  } finally {
    await ctx.db.query(...restore);
  }
}

/**
 * Expects the service's refusal to sign, counted as `what`: 503 `{code: 14, message, details}`,
 * or on a SCRAPI route its concise problem details (CBOR, as every SCRAPI refusal).
 */
async function expectRefused(ask: () => Promise<Response>, what: string) {
  const before = await refusals();
  const res = await ask();
  const type = res.headers.get("content-type") ?? "";
  expect(res.status, `${type}: ${(await res.clone().text()).slice(0, 300)}`).toBe(503);
  if (type.startsWith("application/concise-problem-details+cbor")) {
    const problem = decodeCbor(await bytes(res)) as Map<number, unknown>;
    expect(problem.get(-4)).toBe(503);
    expect(problem.get(-2)).toMatch(/refusing to sign/);
  } else {
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["code", "details", "message"]);
    expect(body.code).toBe(14);
    expect(body.message).toMatch(/refusing to sign/);
  }
  expect((await refusals())[what] ?? 0).toBeGreaterThan(before[what] ?? 0);
}

describe(`a database writer's rows, rewritten and put back (${process.env.TEST_DB ?? "pglite"})`, () => {
  it("a leaf rewritten, asked for, restored: the next request gets the receipt, which verifies (nothing kept from the rewritten read)", async () => {
    const id = events[1] as string;
    for (const profile of ["mmr", "rfc9162"] as const) {
      forget();
      const flip: Sql = [
        "update log_entries set leaf = set_byte(leaf, 0, get_byte(leaf, 0) # 1) where record_id = $1",
        [id],
      ];
      await whileAltered(flip, flip, async () => {
        const r = await s.api(`/archivist/v1/receipts/events/${id}?profile=${profile}`, { token: ta });
        expect(r.status, await r.clone().text()).toBe(503);
      });
      await receiptVerifies(id, profile);
      await receiptVerifies(id, profile === "mmr" ? "rfc9162" : "mmr");
    }
  });

  it("a leaf index rewritten while an MMR receipt is made (which does not read it): the RFC 9162 receipt is refused only until it is restored", async () => {
    const id = events[2] as string;
    forget();
    await whileAltered(
      ["update log_entries set leaf_index = leaf_index + 1 where record_id = $1", [id]],
      ["update log_entries set leaf_index = leaf_index - 1 where record_id = $1", [id]],
      async () => {
        await receiptVerifies(id, "mmr");
        const r = await s.api(`/archivist/v1/receipts/events/${id}?profile=rfc9162`, { token: ta });
        expect(r.status, await r.clone().text()).toBe(503);
      },
    );
    await receiptVerifies(id, "rfc9162");
  });
});

describe(`a record rewritten after its receipt was made (${process.env.TEST_DB ?? "pglite"})`, () => {
  it("its statement is not signed of the rewritten row, though its receipt is kept; put back, it is again", async () => {
    const id = events[4] as string;
    const path = `/archivist/v2/assets/${asset.split("/").pop()}/events/${id}/statement`;
    const statements = [path, `${path}?transparent=true`, `${path}?transparent=true&profile=rfc9162`];
    forget();
    // Asked once honestly: its entry checked and its receipts kept, as a running service keeps them.
    for (const p of statements) expect((await s.api(p, { token: ta })).status, p).toBe(200);
    await whileAltered(
      [
        `update asset_events set event_attributes = event_attributes || '{"vcon_operation": "vcon_consent_accepted.analysis"}'::jsonb where id = $1`,
        [id],
      ],
      [
        `update asset_events set event_attributes = event_attributes || '{"vcon_operation": "vcon_create"}'::jsonb where id = $1`,
        [id],
      ],
      async () => {
        for (const p of statements)
          await expectRefused(
            () => s.api(p, { token: ta }),
            p.includes("rfc9162") ? "receipt_rfc9162" : "receipt",
          );
      },
    );
    for (const p of statements) expect((await s.api(p, { token: ta })).status, p).toBe(200);
  });
});

describe(`rows that no longer make a record: refused on every receipt route, never a 500 (${process.env.TEST_DB ?? "pglite"})`, () => {
  const assetId = () => asset.split("/").pop() as string;
  /** Every receipt route of one record, as `caller` asks: the MMR ones and the RFC 9162 ones apart. */
  const routes = (id: string) => ({
    mmr: [
      `/archivist/v1/receipts/events/${id}`,
      `/archivist/v1/receipts/assets/${assetId()}/events/${id}`,
      `/archivist/v1/receipts/events/${id}?profile=mmr&mmr_proof=bstr`,
      `/archivist/v1/receipts/events/${id}?vds=3`,
    ],
    rfc9162: [
      `/archivist/v1/receipts/events/${id}?profile=rfc9162`,
      `/archivist/v1/receipts/assets/${assetId()}/events/${id}?profile=rfc9162`,
    ],
  });
  const batch = (id: string, profile: "mmr" | "rfc9162", token: string) =>
    s.api("/archivist/v1/receipts:batch", {
      method: "POST",
      token,
      json: { profile, records: [`events/${id}`, `assets/${assetId()}/events/${id}`] },
    });

  /** Asks each route of `profiles` as `token`, each from a fresh process's view; every one refused. */
  async function everyRouteRefused(id: string, token: string, profiles: Array<"mmr" | "rfc9162">) {
    for (const profile of profiles) {
      const what = profile === "mmr" ? "receipt" : "receipt_rfc9162";
      for (const path of routes(id)[profile]) {
        forget();
        await expectRefused(() => s.api(path, { token }), what);
      }
      forget();
      await expectRefused(() => batch(id, profile, token), what);
    }
  }

  it("an asset event's row moved to another tenancy: 503 on every route, counted", async () => {
    const id = events[3] as string;
    const other = (
      await ctx.db.query<{ id: string }>("select id from tenancies where id <> $1 order by id limit 1", [
        tenant,
      ])
    )[0]?.id;
    await whileAltered(
      ["update asset_events set tenant_id = $2 where id = $1", [id, other]],
      ["update asset_events set tenant_id = $2 where id = $1", [id, tenant]],
      // The row now names the other tenancy: its owner may read it, and asks.
      () => everyRouteRefused(id, tb, ["mmr", "rfc9162"]),
    );
    forget();
    await receiptVerifies(id, "mmr");
    await receiptVerifies(id, "rfc9162");
  });

  it("MMR nodes deleted: 503 on every MMR receipt route, counted; the RFC 9162 receipt does not read them", async () => {
    const id = events[3] as string;
    const saved = `saved_mmr_${randomUUID().replaceAll("-", "")}`;
    await ctx.db.query(`create table ${saved} as select * from mmr_nodes where tenant_id = $1`, [tenant]);
    await ctx.db.query("delete from mmr_nodes where tenant_id = $1", [tenant]);
    try {
      await everyRouteRefused(id, ta, ["mmr"]);
      forget();
      await receiptVerifies(id, "rfc9162");
    } finally {
      await ctx.db.query(`insert into mmr_nodes select * from ${saved}`);
      await ctx.db.query(`drop table ${saved}`);
    }
    forget();
    await receiptVerifies(id, "mmr");
  });

  it("RFC 9162 tree nodes deleted: 503 on every RFC 9162 receipt route and the tlog-proof, counted", async () => {
    const id = events[3] as string;
    const saved = `saved_tlog_${randomUUID().replaceAll("-", "")}`;
    await ctx.db.query(`create table ${saved} as select * from tlog_nodes where tenant_id = $1`, [tenant]);
    await ctx.db.query("delete from tlog_nodes where tenant_id = $1", [tenant]);
    try {
      await everyRouteRefused(id, ta, ["rfc9162"]);
      forget();
      await expectRefused(() => s.api(`/archivist/v1/tlog-proofs/events/${id}`, { token: ta }), "tlog_proof");
    } finally {
      await ctx.db.query(`insert into tlog_nodes select * from ${saved}`);
      await ctx.db.query(`drop table ${saved}`);
    }
    forget();
    await receiptVerifies(id, "rfc9162");
  });
});

describe(`a registered statement's stored bytes swapped for another genuine statement (${process.env.TEST_DB ?? "pglite"})`, () => {
  /** Every route that serves a registered statement with its receipt, and the label its refusal counts under. */
  const statementRoutes = (entry: string) => [
    { path: `/tenants/${tenant}/entries/${entry}/statement?transparent=true&profile=mmr`, what: "receipt" },
    {
      path: `/tenants/${tenant}/entries/${entry}/statement?transparent=true&profile=rfc9162`,
      what: "receipt_rfc9162",
    },
    // SCRAPI's default profile (ARCHIVIST_SCRAPI_RECEIPT_PROFILE), at the service's root.
    { path: `/entries/${entry}/statement?transparent=true`, what: "receipt_rfc9162" },
    { path: `/entries/${entry}/statement?transparent=true&vds=3`, what: "receipt" },
  ];

  async function transparentVerifies(path: string, statement: Uint8Array) {
    const r = await s.api(path, { token: ta });
    expect(r.status, await r.clone().text()).toBe(200);
    const v = verifyStatement(await bytes(r), {
      issuerKeys: new Map([["test-key-1", vectorPublicKey]]),
      serviceKeys: await keys(),
    });
    expect(v.ok, JSON.stringify(v)).toBe(true);
    // The statement served is the one registered at this entry.
    const plain = await s.api(path.replace(/transparent=true/, "transparent=false"), { token: ta });
    expect(Buffer.from(await bytes(plain)).equals(Buffer.from(statement))).toBe(true);
  }

  it("honest: each entry's transparent statement verifies, and is the statement registered", async () => {
    for (const [i, entry] of entries.entries())
      for (const { path } of statementRoutes(entry)) {
        forget();
        await transparentVerifies(path, statements[i] as Uint8Array);
      }
  });

  it("swapped: refused with 503 on every route that serves it with a receipt or proof, counted; put back, served again", async () => {
    const [first, second] = entries.map(recordOf) as [string, string];
    await whileAltered(
      [
        "update events set statement = (select statement from events where id = $2) where id = $1",
        [first, second],
      ],
      ["update events set statement = $2 where id = $1", [first, Buffer.from(statements[0] as Uint8Array)]],
      async () => {
        for (const { path, what } of statementRoutes(entries[0] as string)) {
          forget();
          await expectRefused(() => s.api(path, { token: ta }), what);
          // Asked again, with the record's entry and receipt kept from the first request.
          await expectRefused(() => s.api(path, { token: ta }), what);
        }
        forget();
        await expectRefused(
          () => s.api(`/archivist/v1/tlog-proofs/events/${first}`, { token: ta }),
          "tlog_proof",
        );
      },
    );
    for (const { path } of statementRoutes(entries[0] as string))
      await transparentVerifies(path, statements[0] as Uint8Array);
  });
});

describe(`a log node deleted under the routes that sign nothing from it (${process.env.TEST_DB ?? "pglite"})`, () => {
  it("answers 503 naming the node on the entry, leaf and consistency routes, never a 500; put back, served again", async () => {
    const [node] = await ctx.db.query<{ idx: string; hash: Uint8Array }>(
      "select idx, hash from mmr_nodes where tenant_id = $1 and idx = 1",
      [tenant],
    );
    if (!node) throw new Error("no MMR node 1");
    const sealed = await ctx.db.query<{ mmr_size: string }>(
      "select mmr_size from seals where tenant_id = $1 order by mmr_size desc limit 1",
      [tenant],
    );
    const size = Number(sealed[0]?.mmr_size);
    const paths = [
      `/archivist/v1/merklelogs/${tenant}/entries/0`,
      `/archivist/v1/merklelogs/${tenant}/leaves/0`,
      `/archivist/v1/merklelogs/${tenant}/consistency?from=1&to=${size}`,
    ];
    await whileAltered(
      ["delete from mmr_nodes where tenant_id = $1 and idx = 1", [tenant]],
      ["insert into mmr_nodes (tenant_id, idx, hash) values ($1, 1, $2)", [tenant, Buffer.from(node.hash)]],
      async () => {
        for (const path of paths) {
          forget();
          const res = await s.api(path, { token: ta });
          expect(res.status, `${path}: ${await res.clone().text()}`).toBe(503);
          const body = (await res.json()) as { code: number; message: string };
          expect(body.code).toBe(14);
          expect(body.message).toMatch(/log node 1 is missing from the database/);
        }
      },
    );
    for (const path of paths) expect((await s.api(path, { token: ta })).status, path).toBe(200);
  });
});
