import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { ChainConfig } from "../../../plugins/conserver/config/types.js";
import type { DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import { ConserverError } from "../../../plugins/conserver/errors.js";
import * as archivist from "../../../plugins/conserver/links/archivist.js";
import * as scitt from "../../../plugins/conserver/links/scitt.js";
import type {
  LinkContext,
  LinkModule,
  Registrar,
  StatementSigner,
} from "../../../plugins/conserver/links/types.js";
import type { AddOptions, JobQueue } from "../../../plugins/conserver/queue/index.js";
import { type ResolvedLink, runChain } from "../../../plugins/conserver/runtime/chain.js";
import { MemoryVconStore } from "../../../plugins/conserver/store/memory-store.js";
import { hashVcon, parseVcon } from "../../../plugins/conserver/vcon.js";

const log = pino({ level: "silent" });
const VCON =
  '{"uuid":"l-1","created_at":"2024-03-01T10:00:00Z","parties":[{"tel":"+1555"}],"duration":12.0,"analysis":[]}';
const BACKEND = { url: "https://arch.example/", client_id: "cid", client_secret: "sec" };

class CapturingQueue implements JobQueue<DeliveryJob> {
  readonly name = "capture";
  readonly attempts = 1;
  readonly added: Array<{ name: string; data: DeliveryJob; opts?: AddOptions }> = [];
  async add(name: string, data: DeliveryJob, opts?: AddOptions) {
    this.added.push({ name, data, ...(opts ? { opts } : {}) });
  }
  process() {}
  async counts() {
    return { waiting: this.added.length, delayed: 0, active: 0, failed: 0 };
  }
  async close() {}
}

function context(extra: Partial<LinkContext> = {}) {
  const store = new MemoryVconStore();
  store.set("l-1", parseVcon(VCON));
  const queue = new CapturingQueue();
  const ctx: LinkContext = { store, log, defaultHashMode: "python-json", deliveryQueue: queue, ...extra };
  return { store, queue, ctx };
}

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    return err instanceof ConserverError ? err.code : "other";
  }
  return undefined;
}

describe("archivist link", () => {
  it("queues one delivery job keyed by uuid, operation and hash, and returns the uuid", async () => {
    const { queue, ctx } = context();
    const out = await archivist.run(
      "l-1",
      "arch",
      { vcon_operation: "created", backend: BACKEND, asset_free: true },
      ctx,
    );
    expect(out).toBe("l-1");
    const [added] = queue.added;
    const hash = hashVcon(parseVcon(VCON), "python-json");
    expect(added?.opts?.jobId).toBe(`l-1:vcon_created:${hash}`);
    expect(added?.data).toMatchObject({
      idempotencyKey: `l-1:vcon_created:${hash}`,
      vconUuid: "l-1",
      alsoAssetFree: true,
      backend: { url: "https://arch.example", clientId: "cid", clientSecret: "sec" },
    });
    expect(added?.data.event.event_attributes).toMatchObject({
      conserver_link: "archivist",
      conserver_link_name: "arch",
      payload: hash,
    });
  });

  it("records vCons as public assets only when public_assets asks for it", async () => {
    const { queue, ctx } = context();
    await archivist.run("l-1", "arch", { vcon_operation: "created", backend: BACKEND }, ctx);
    await archivist.run(
      "l-1",
      "pub",
      { vcon_operation: "shared", backend: BACKEND, public_assets: true },
      ctx,
    );
    expect(queue.added.map((a) => a.data.publicAsset)).toEqual([undefined, true]);
    expect(
      await codeOf(
        archivist.run("l-1", "a", { vcon_operation: "x", backend: BACKEND, public_assets: "yes" }, ctx),
      ),
    ).toBe("LINK_OPTIONS");
  });

  it("understands the Python DataTrails link's options", async () => {
    const { queue, ctx } = context();
    const options = {
      api_url: "https://app.datatrails.ai/archivist",
      vcon_operation: "vcon_created",
      partner_id: "acme",
      hash_mode: "jcs",
      auth: {
        type: "OIDC-client-credentials",
        token_endpoint: "https://t/token",
        client_id: "a",
        client_secret: "b",
      },
    };
    await archivist.run("l-1", "dt", options, ctx);
    expect(queue.added[0]?.data.backend).toEqual({
      url: "https://app.datatrails.ai",
      clientId: "a",
      clientSecret: "b",
      tokenUrl: "https://t/token",
      partnerId: "acme",
    });
    expect(queue.added[0]?.data.event.event_attributes.payload).toBe(hashVcon(parseVcon(VCON), "jcs"));
  });

  it("records a lifecycle operation per purpose, and an operation the vocabulary does not know as it is", async () => {
    const warnings: unknown[] = [];
    const watching = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    const { queue, ctx } = context({ log: watching });
    await archivist.run(
      "l-1",
      "consent",
      { vcon_operation: "consent_accepted", purpose: ["ai_training", "analysis"], backend: BACKEND },
      ctx,
    );
    expect(queue.added[0]?.data.event.event_attributes).toMatchObject({
      vcon_operation: "vcon_consent_accepted",
      consent_purpose: "ai_training,analysis",
    });
    expect(warnings).toEqual([]);
    await archivist.run("l-1", "other", { vcon_operation: "transcribed", backend: BACKEND }, ctx);
    expect(queue.added[1]?.data.event.event_attributes.vcon_operation).toBe("vcon_transcribed");
    // Said once per link, not per vCon: the operation is the link's configuration.
    await archivist.run("l-1", "other", { vcon_operation: "transcribed", backend: BACKEND }, ctx);
    expect(queue.added[2]?.data.event.event_attributes.vcon_operation).toBe("vcon_transcribed");
    expect(warnings).toMatchObject([
      {
        operation: "transcribed",
        msg: "unknown lifecycle operation: recorded as it is (said once per link)",
      },
    ]);
    for (const purpose of [3, [], ","])
      expect(
        await codeOf(archivist.run("l-1", "a", { vcon_operation: "x", purpose, backend: BACKEND }, ctx)),
        JSON.stringify(purpose),
      ).toBe("LINK_OPTIONS");
  });

  it("fails (to the DLQ) without vCon, operation, backend, queue or with bad options", async () => {
    const { ctx } = context();
    expect(await codeOf(archivist.run("nope", "a", { vcon_operation: "x", backend: BACKEND }, ctx))).toBe(
      "VCON_NOT_FOUND",
    );
    expect(await codeOf(archivist.run("l-1", "a", { backend: BACKEND }, ctx))).toBe("LINK_OPTIONS");
    expect(await codeOf(archivist.run("l-1", "a", { vcon_operation: "x" }, ctx))).toBe("LINK_OPTIONS");
    expect(await codeOf(archivist.run("l-1", "a", null, ctx))).toBe("LINK_OPTIONS");
    expect(
      await codeOf(
        archivist.run("l-1", "a", { vcon_operation: "x", backend: BACKEND, hash_mode: "md5" }, ctx),
      ),
    ).toBe("LINK_OPTIONS");
    const auth = { type: "basic", client_id: "a", client_secret: "b" };
    expect(await codeOf(archivist.run("l-1", "a", { vcon_operation: "x", api_url: "u", auth }, ctx))).toBe(
      "LINK_OPTIONS",
    );
    const { deliveryQueue: _q, ...noQueue } = ctx;
    expect(await codeOf(archivist.run("l-1", "a", { vcon_operation: "x", backend: BACKEND }, noQueue))).toBe(
      "LINK_CONTEXT",
    );
  });
});

describe("scitt link", () => {
  const signed: Array<Record<string, string>> = [];
  const signer: StatementSigner = {
    sign: async (attrs) => {
      signed.push(attrs);
      return new Uint8Array([0xd2, 1, 2]);
    },
  };
  const registrar: Registrar = {
    register: async () => ({ entryId: "entry-1", receipt: new Uint8Array([9, 9]) }),
  };

  it("signs the template event, registers it and stores the receipt on the vCon", async () => {
    const { store, ctx } = context({ scitt: { signer, registrar } });
    expect(await scitt.run("l-1", "sc", { vcon_operation: "enhanced" }, ctx)).toBe("l-1");
    expect(signed.at(-1)).toMatchObject({
      conserver_link: "scitt",
      vcon_operation: "vcon_enhanced",
      subject: "vcon://l-1",
    });
    const doc = await store.get("l-1");
    expect(doc?.text).toContain('"duration":12.0');
    const analysis = (doc?.value.analysis as Array<Record<string, unknown>> | undefined)?.[0];
    expect(analysis).toMatchObject({
      type: "scitt_receipt",
      vendor: "vcon-archivist",
      encoding: "json",
      dialog: 0,
    });
    expect(JSON.parse(String(analysis?.body))).toEqual({
      entry_id: "entry-1",
      cose_receipt: "CQk=",
      vcon_operation: "vcon_enhanced",
      subject: "vcon://l-1",
      vcon_hash: hashVcon(parseVcon(VCON), "python-json"),
    });
  });

  it("leaves signed vCons and store_receipt: false alone, and reports registration failures", async () => {
    const { store, ctx } = context({ scitt: { signer, registrar } });
    await scitt.run("l-1", "sc", { store_receipt: false }, ctx);
    expect((await store.get("l-1"))?.text).toBe(VCON);
    const payload = Buffer.from(VCON).toString("base64url");
    store.set("s-1", parseVcon(JSON.stringify({ payload, signatures: [] })));
    expect(await scitt.run("s-1", "sc", null, ctx)).toBe("s-1");
    const failing: Registrar = { register: async () => Promise.reject(new Error("503 from TS")) };
    expect(
      await codeOf(scitt.run("l-1", "sc", null, { ...ctx, scitt: { signer, registrar: failing } })),
    ).toBe("SCITT_REGISTRATION");
    expect(await codeOf(scitt.run("l-1", "sc", null, { ...ctx, scitt: undefined }))).toBe("LINK_CONTEXT");
  });
});

describe("chains", () => {
  const link = (f: (uuid: string) => Promise<string | null>): LinkModule => ({
    defaultOptions: {},
    run: (u) => f(u),
  });
  const note = <T>(list: string[], entry: string, out: T): T => {
    list.push(entry);
    return out;
  };
  const chain: ChainConfig = {
    name: "c",
    links: ["a", "b", "c"],
    ingressLists: ["in"],
    egressLists: [],
    enabled: true,
  };
  const ctx = context().ctx;

  it("passes each link's returned uuid to the next", async () => {
    const seen: string[] = [];
    const links = new Map<string, ResolvedLink>(
      ["a", "b", "c"].map((n) => [
        n,
        { name: n, options: null, module: link(async (u) => note(seen, u, `${u}${n}`)) },
      ]),
    );
    expect(await runChain(chain, "x", links, ctx)).toBe("xabc");
    expect(seen).toEqual(["x", "xa", "xab"]);
  });

  it("stops quietly on null and propagates a throw", async () => {
    const calls: string[] = [];
    const links = new Map<string, ResolvedLink>([
      ["a", { name: "a", options: null, module: link(async (u) => note(calls, "a", u)) }],
      ["b", { name: "b", options: null, module: link(async () => note(calls, "b", null)) }],
      ["c", { name: "c", options: null, module: link(async (u) => note(calls, "c", u)) }],
    ]);
    expect(await runChain(chain, "x", links, ctx)).toBeNull();
    expect(calls).toEqual(["a", "b"]);
    links.set("b", { name: "b", options: null, module: link(async () => Promise.reject(new Error("boom"))) });
    await expect(runChain(chain, "x", links, ctx)).rejects.toThrow("boom");
  });
});
