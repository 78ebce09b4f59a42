import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../../src/config.js";
import type { Ctx } from "../../../../src/context.js";
import {
  ASSET_EVENT_FIELDS,
  ASSET_FIELDS,
  type AssetEventSource,
  type AssetSource,
  assetEventLeafHash,
  assetEventRecord,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetRecord,
  FIELDS_V1_V2,
  FIELDS_V3,
  FREE_EVENT_FIELDS,
  FREE_EVENT_HASHED_FIELDS,
  FREE_EVENT_SEARCH_FIELDS,
  type FreeEventSource,
  freeEventRecord,
  freeEventSearchRecord,
  type RecordFields,
} from "../../../../src/formats/record/index.js";
import { buildApp } from "../../../../src/http/app.js";
import { openApiDocument } from "../../../../src/http/openapi.js";
import type { AnyRouteSpec } from "../../../../src/http/route.js";
import { assetOut, eventOut } from "../../../../src/http/schemas/assets.js";
import { freeEventOut, freeEventSearchOut } from "../../../../src/http/schemas/free-events.js";

// The record model is the one place a field is added: these tests hold the API JSON (the core
// mappers), the HTTP schemas (and so the OpenAPI documents) and the hashed fields to it.

const principal = { issuer: "i", subject: "s", display_name: "d", email: "e" };
const eventRow: AssetEventSource = {
  id: "e1",
  asset_id: "a1",
  tenant_id: "t1",
  operation: "Record",
  behaviour: "RecordEvidence",
  event_attributes: { x: "1" },
  asset_attributes: { y: "2" },
  timestamp_declared: new Date(1),
  timestamp_accepted: new Date(2),
  timestamp_committed: new Date(3),
  principal_declared: principal,
  principal_accepted: principal,
  confirmation_status: "COMMITTED",
  proof_mechanism: "MERKLE_LOG",
  mmr_index: 4,
  idtimestamp: "018fffffffff000100",
  merklelog_entry: null,
  transaction_id: "",
  block_number: 0,
  transaction_index: 0,
  from_address: "0xabc",
  covering_seal: null,
};
const assetRow: AssetSource = {
  id: "a1",
  tenant_id: "t1",
  behaviours: ["RecordEvidence"],
  proof_mechanism: "MERKLE_LOG",
  public: false,
  chain_id: "c",
  tracked: "TRACKED",
  owner: "0x1",
  confirmation_status: "PENDING",
};
const freeRow: FreeEventSource = {
  id: "f1",
  tenant_id: "7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
  attributes: { a: "b" },
  trails: ["t"],
  event_type: "ty",
  created_by: "me",
  created_at: 123,
  confirmation_status: "COMMITTED",
  mmr_index: 2,
  idtimestamp: "018fffffffff000100",
  content_hash: "h",
};

const cases = [
  { name: "asset", fields: ASSET_FIELDS, schema: assetOut, record: assetRecord(assetRow, { q: 1 }) },
  { name: "asset event", fields: ASSET_EVENT_FIELDS, schema: eventOut, record: assetEventRecord(eventRow) },
  {
    name: "asset-free event",
    fields: FREE_EVENT_FIELDS,
    schema: freeEventOut,
    record: freeEventRecord(freeRow),
  },
  {
    name: "asset-free search result",
    fields: FREE_EVENT_SEARCH_FIELDS,
    schema: freeEventSearchOut,
    record: freeEventSearchRecord(freeRow),
  },
] as const;

const names = (fields: RecordFields) => Object.keys(fields);

describe("record model", () => {
  for (const c of cases) {
    it(`${c.name}: the API JSON writes the model's fields, in its order`, () => {
      expect(Object.keys(c.record)).toEqual(names(c.fields));
    });

    it(`${c.name}: the HTTP schema has the model's fields and accepts the API JSON`, () => {
      expect(Object.keys(c.schema.shape)).toEqual(names(c.fields));
      expect(() => c.schema.strict().parse(c.record)).not.toThrow();
    });

    it(`${c.name}: the OpenAPI document lists the model's fields`, () => {
      const spec = { method: "get", path: "/r", group: "g", summary: "", auth: "public", response: c.schema };
      const doc = openApiDocument([spec as unknown as AnyRouteSpec], "/r", "http://localhost");
      const paths = doc.paths as Record<string, { get: { responses: { 200: { schema: unknown } } } }>;
      const schema = paths["/r"]?.get.responses[200].schema as { properties: object; required: string[] };
      expect(Object.keys(schema.properties)).toEqual(names(c.fields));
      expect(schema.required).toEqual(names(c.fields));
    });
  }

  it("the service's own record routes document the model's fields", async () => {
    // The route table as the service builds it (nothing is served: no storage is touched).
    const ctx = {
      db: {},
      config: loadConfig({}, {}),
      log: pino({ level: "silent" }),
      keys: {},
      logGuard: {},
    } as unknown as Ctx;
    const built = buildApp(ctx);
    const doc = openApiDocument(built.specs, "/archivist", "http://localhost");
    await built.close();
    type Op = {
      responses: { 200: { schema: { properties: Record<string, { items?: { properties: object } }> } } };
    };
    const paths = doc.paths as Record<string, Record<string, Op>>;
    const props = (path: string, method: string) =>
      Object.keys(paths[path]?.[method]?.responses[200].schema.properties ?? {});
    expect(props("/archivist/v2/assets/{uuid}", "get")).toEqual(names(ASSET_FIELDS));
    expect(props("/archivist/v2/assets/{uuid}/events/{event}", "get")).toEqual(names(ASSET_EVENT_FIELDS));
    expect(props("/archivist/v1/events/{uuid}", "get")).toEqual(names(FREE_EVENT_FIELDS));
    expect(props("/archivist/v1/events", "post")).toEqual(names(FREE_EVENT_FIELDS));
    const search = paths["/archivist/v1/events/search"]?.post?.responses[200].schema.properties.events;
    expect(Object.keys(search?.items?.properties ?? {})).toEqual(names(FREE_EVENT_SEARCH_FIELDS));
  });

  it("the hashed fields are fields of the record", () => {
    for (const f of [...FIELDS_V1_V2, ...FIELDS_V3]) expect(names(ASSET_EVENT_FIELDS)).toContain(f);
    for (const f of FREE_EVENT_HASHED_FIELDS) expect(names(FREE_EVENT_FIELDS)).toContain(f);
  });

  it("an asset event's leaf covers its v3 fields and nothing else", () => {
    const id = 0x018fffffffff0001n;
    const leaf = (e: typeof eventRow) =>
      Buffer.from(assetEventLeafHash(assetEventRecord(e), id)).toString("hex");
    const base = leaf(eventRow);
    expect(leaf({ ...eventRow, transaction_id: "0xfeed", from_address: "0x2" })).toBe(base);
    expect(leaf({ ...eventRow, operation: "Other" })).not.toBe(base);
    // The public face hashes as the private one: one leaf whichever route served the record.
    expect(
      Buffer.from(assetEventLeafHash(assetEventRecord(eventRow, "publicassets"), id)).toString("hex"),
    ).toBe(base);
  });

  it("an asset-free event's leaf covers its hashed fields and nothing else", () => {
    const extra = assetFreeExtraBytes(freeRow.tenant_id);
    const leaf = (r: FreeEventSource) =>
      Buffer.from(assetFreeEventLeafHash(freeEventRecord(r), 5n, extra)).toString("hex");
    const base = leaf(freeRow);
    expect(leaf({ ...freeRow, created_by: "other", created_at: 9 })).toBe(base);
    expect(leaf({ ...freeRow, trails: ["u"] })).not.toBe(base);
  });
});
