import { readdirSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { fixtureJson, fixturePath } from "../../helpers/fixtures.js";
import { committedRecord, until } from "../../helpers/poll.js";
import { serviceForSuite } from "../../helpers/service.js";
import {
  atService,
  type DataTrailsOptions,
  filled,
  shipped,
  shippedPolicy,
  vconServerConfig,
} from "../../helpers/vcon-server-snippet.js";

// Replays, request for request, what vcon-server's `datatrails` link (conserver/links/datatrails,
// link_version 0.3.0) sends for each fixture vCon, read from its code: a form-encoded client
// credentials token; the day's "droid" asset looked up by three attributes (GET with a JSON
// content type and no body); the asset created when missing (`public: false`); a Record event
// with its 12 attributes, `timestamp_declared` being `vcon.updated_at or vcon.created_at`, so
// null for a vCon without either; and an asset-free v1 event with the same attributes and the
// subject as its only trail. The link raises on any status >= 400 of the first three, which
// dead-letters the vCon; the v1 event's failure it only logs ("New Event Creation Failure").
//
// Its options are the shipped config.yml's (plugins/conserver/vcon-server: api_url, the token
// endpoint, partner_id, vcon_operation, the link's name), and it runs as an application that
// holds exactly the shipped access policy, not the owner's rights.
const suite = serviceForSuite();
const config = vconServerConfig();
const link = shipped<DataTrailsOptions>(config.links, "links.datatrails");

type Doc = Record<string, unknown>;
type Rec = Record<string, unknown> & { identity: string; confirmation_status?: string };

const hashes = fixtureJson<{
  vectors: Record<string, { sha256_vcon_server_after_read_normalization: string }>;
}>("vcon/hash-vectors.json").vectors;
const fixtures = readdirSync(fixturePath("vcon")).filter((f) => f.endsWith(".vcon.json"));

/** The uuid vcon-server files a vCon under: its own, or its signed/encrypted envelope's. */
function uuidOf(d: Doc): string {
  const signatures = d.signatures as Array<{ header?: { uuid?: string } }> | undefined;
  const unprotected = d.unprotected as { uuid?: string } | undefined;
  return String(d.uuid ?? signatures?.[0]?.header?.uuid ?? unprotected?.uuid);
}

/** The link's `vcon_operation` as it sends it: lower case, one `vcon_` prefix. */
const operation = `vcon_${link.options.vcon_operation
  .toLowerCase()
  .replace(/^vcon_/, "")
  .replace(/^vcon-/, "")}`;

/** The link's headers: bearer token, its user agent and partner id, and a JSON content type on every call. */
const linkHeaders = (token: string) => ({
  Authorization: `Bearer ${token}`,
  "DataTrails-User-Agent": "oss/conserverlink/0.3.0",
  "DataTrails-Partner-ID": link.options.partner_id,
  "Content-Type": "application/json",
});

/** The conserver's application, made as docs/vcon-server.md says: credentials and the shipped policy. */
const app = { clientId: "", clientSecret: "" };
beforeAll(async () => {
  const made = await suite.s.api("/archivist/iam/v1/applications", {
    method: "POST",
    token: suite.token,
    json: { display_name: "vcon-server" },
  });
  expect(made.status).toBe(200);
  const body = (await made.json()) as { client_id: string; credentials: Array<{ secret: string }> };
  app.clientId = body.client_id;
  app.clientSecret = body.credentials[0]?.secret ?? "";
  const policy = await suite.s.api("/archivist/iam/v1/access_policies", {
    method: "POST",
    token: suite.token,
    json: shippedPolicy(app.clientId),
  });
  expect(policy.status, await policy.clone().text()).toBe(200);
});

/** The snippet's options with the operator's values in, at the test's service. */
function options() {
  const values = { "conserver client id": app.clientId, "conserver client secret": app.clientSecret };
  return {
    apiUrl: atService(link.options.api_url, suite.s.url),
    tokenEndpoint: atService(link.options.auth.token_endpoint, suite.s.url),
    clientId: filled(link.options.auth.client_id, values),
    clientSecret: filled(link.options.auth.client_secret, values),
  };
}

async function linkToken(): Promise<string> {
  const o = options();
  // The link knows one auth type, case-insensitively.
  expect(link.options.auth.type.toLowerCase()).toBe("oidc-client-credentials");
  const res = await fetch(o.tokenEndpoint, {
    method: "POST",
    // requests.post(url, data={...}) sends a form.
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: o.clientId,
      client_secret: o.clientSecret,
    }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { access_token: string; expires_in: number };
  // The link refreshes 300 s before expiry: a shorter lifetime would make it fetch a token per call.
  expect(body.expires_in).toBeGreaterThan(300);
  return body.access_token;
}

/** One request as the link sends it, to `{api_url}{path}`: its status and JSON answer. */
async function send(method: string, path: string, token: string, json?: unknown) {
  const res = await fetch(`${options().apiUrl}${path}`, {
    method,
    headers: linkHeaders(token),
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: res.status, body: (await res.json()) as Rec };
}

/** A request whose failure would raise in the link (and dead-letter the vCon). */
async function call(method: string, path: string, token: string, json?: unknown): Promise<Rec> {
  const { status, body } = await send(method, path, token, json);
  expect(status, `${method} ${path}: ${JSON.stringify(body)}`).toBeLessThan(400);
  return body;
}

/** The link's event attributes for a vCon of this payload. */
function eventAttributes(doc: Doc, payload: string) {
  const subject = `vcon://${uuidOf(doc)}`;
  return {
    arc_display_type: operation,
    arc_event_type: operation,
    conserver_link: "DataTrails",
    conserver_link_name: link.name,
    conserver_link_version: "0.3.0",
    payload,
    payload_hash_alg: "SHA-256",
    payload_preimage_content_type: "application/vcon+json",
    subject,
    timestamp_declared: (doc.updated_at ?? doc.created_at ?? null) as string | null,
    vcon_draft_version: "01",
    vcon_operation: operation,
  };
}

/**
 * One run of the link's `run()` for a vCon; returns the asset event it created and what its
 * asset-free event was answered (which the link only logs).
 */
async function runLink(
  doc: Doc,
  payload: string,
): Promise<{ assetEvent: Rec; free: { status: number; body: Rec } }> {
  const token = await linkToken();
  const assetAttributes = {
    arc_display_type: "vcon_droid",
    conserver_link_version: "0.3.0",
    droid_id: new Date().toISOString().slice(0, 10),
  };
  const q = new URLSearchParams(Object.entries(assetAttributes).map(([k, v]) => [`attributes.${k}`, v]));
  const found = (await call("GET", `/v2/assets?${q}`, token)) as unknown as { assets: Rec[] };
  const assetId =
    found.assets[0]?.identity ??
    (
      await call("POST", "/v2/assets", token, {
        behaviours: ["RecordEvidence"],
        attributes: assetAttributes,
        public: false,
      })
    ).identity;
  const attributes = eventAttributes(doc, payload);
  const assetEvent = await call("POST", `/v2/${assetId}/events`, token, {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: attributes,
  });
  const free = await send("POST", "/v1/events", token, { attributes, trails: [attributes.subject] });
  return { assetEvent, free };
}

const committed = (path: string) => committedRecord<Rec>(suite.s, suite.token, path);

describe("vcon-server's datatrails link, replayed with the shipped config.yml and access policy", () => {
  it("records every fixture vCon: one droid asset and its asset events, committed with receipts that verify; the asset-free preview is refused", async () => {
    expect(fixtures.length).toBe(9);
    const made: Array<{ file: string; doc: Doc; assetEvent: Rec }> = [];
    for (const file of fixtures) {
      const doc = fixtureJson<Doc>(`vcon/${file}`);
      const payload = hashes[file]?.sha256_vcon_server_after_read_normalization;
      expect(payload, file).toMatch(/^[0-9a-f]{64}$/);
      const { assetEvent, free } = await runLink(doc, payload as string);
      // The policy grants no asset-free events (administrators only): the link logs the 403
      // and the vCon goes on, recorded by its asset event.
      expect(free.status, file).toBe(403);
      expect(free.body.message).toBe("asset-free events need administrator rights in this tenancy");
      made.push({ file, doc, assetEvent });
    }
    // Every vCon of the day hangs off one asset, found again by its attributes.
    expect(new Set(made.map((m) => String(m.assetEvent.asset_identity))).size).toBe(1);
    const nulls = made.filter((m) => m.doc.updated_at === undefined && m.doc.created_at === undefined);
    expect(nulls.length).toBeGreaterThan(0);

    const keys = keysFromKeySet(
      new Uint8Array(await (await suite.s.api("/.well-known/scitt-keys")).arrayBuffer()),
    );
    for (const m of made) {
      const rec = await committed(`/archivist/v2/${m.assetEvent.identity}`);
      const attrs = rec.event_attributes as Record<string, unknown>;
      // Stored as sent: the custom arc_ attribute and a null timestamp alike.
      expect(attrs.arc_event_type, m.file).toBe(operation);
      expect(attrs.conserver_link_name, m.file).toBe(link.name);
      expect(attrs.timestamp_declared, m.file).toBe(m.doc.updated_at ?? m.doc.created_at ?? null);
      const uuid = rec.identity.split("/").at(-1);
      const asset = rec.identity.split("/")[1];
      const res = await suite.s.api(`/archivist/v1/receipts/assets/${asset}/events/${uuid}`, {
        token: suite.token,
      });
      expect(res.status, m.file).toBe(200);
      const verdict = verifyRecordReceipt(rec, new Uint8Array(await res.arrayBuffer()), keys);
      expect(verdict, `${m.file} ${rec.identity} ${JSON.stringify(verdict)}`).toMatchObject({ ok: true });
    }

    // Template events from the link become SCITT statements like ours; without a declared time
    // there is no statement to make, and the answer names what is missing.
    for (const m of made) {
      const res = await suite.s.api(`/archivist/v2/${m.assetEvent.identity}/statement`, {
        token: suite.token,
      });
      if (nulls.includes(m)) {
        expect(res.status, m.file).toBe(400);
        expect(((await res.json()) as { message: string }).message).toContain("timestamp_declared");
      } else {
        expect(res.status, `${m.file}: ${await res.clone().text()}`).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^application\/cose/);
      }
    }
    // The conserver's own look-up of a vCon's trail finds the link's events.
    const first = made[0] as (typeof made)[number];
    const subject = `vcon://${uuidOf(first.doc)}`;
    const trail = (await (
      await suite.s.api(
        `/archivist/v2/assets/-/events?event_attributes.subject=${encodeURIComponent(subject)}`,
        { token: suite.token },
      )
    ).json()) as { events: Rec[] };
    expect(trail.events.map((e) => e.identity)).toContain(first.assetEvent.identity);
  });

  it("the shipped policy grants the link nothing more: no other asset type, event type or asset", async () => {
    const token = await linkToken();
    const other = await send("POST", "/v2/assets", token, {
      behaviours: ["RecordEvidence"],
      attributes: { arc_display_type: "vcon" },
    });
    expect(other.status).toBe(403);
    const owners = await call("POST", "/v2/assets", suite.token, {
      behaviours: ["RecordEvidence"],
      attributes: { arc_display_type: "Document", arc_display_name: "not the conserver's" },
    });
    const listed = (await call("GET", "/v2/assets", token)) as unknown as { assets: Rec[] };
    expect(listed.assets.length).toBeGreaterThan(0);
    expect(listed.assets.map((a) => (a.attributes as Rec).arc_display_type)).toEqual(
      listed.assets.map(() => "vcon_droid"),
    );
    expect(listed.assets.map((a) => a.identity)).not.toContain(owners.identity);
    const droid = listed.assets[0]?.identity as string;
    const wrongType = await send("POST", `/v2/${droid}/events`, token, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "vcon_deleted" },
    });
    expect(wrongType.status).toBe(403);
  });

  it("sends an asset-free event the service records when the caller may write it (administrators)", async () => {
    // Not what the shipped policy grants: the same request as the tenancy's owner, to keep the
    // link's v1 event itself covered (stored as sent, committed, its receipt verifying).
    const file = fixtures[0] as string;
    const doc = fixtureJson<Doc>(`vcon/${file}`);
    const attributes = eventAttributes(
      doc,
      hashes[file]?.sha256_vcon_server_after_read_normalization as string,
    );
    const event = await call("POST", "/v1/events", suite.token, { attributes, trails: [attributes.subject] });
    const rec = await committed(`/archivist/v1/${event.identity}`);
    expect((rec.attributes as Rec).arc_event_type).toBe(operation);
    const keys = keysFromKeySet(
      new Uint8Array(await (await suite.s.api("/.well-known/scitt-keys")).arrayBuffer()),
    );
    // Committed is not yet sealed: the receipt is answered 409 until the seal covers it.
    const res = await until(async () => {
      const r = await suite.s.api(`/archivist/v1/receipts/${event.identity}`, { token: suite.token });
      return r.status === 409 ? undefined : r;
    }, 60_000);
    expect(res.status).toBe(200);
    expect(verifyRecordReceipt(rec, new Uint8Array(await res.arrayBuffer()), keys)).toMatchObject({
      ok: true,
    });
  });
});
