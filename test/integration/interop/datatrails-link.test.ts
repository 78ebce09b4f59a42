import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { keysFromKeySet, verifyRecordReceipt } from "../../../src/core/verify/index.js";
import { fixtureJson, fixturePath } from "../../helpers/fixtures.js";
import { committedRecord } from "../../helpers/poll.js";
import { serviceForSuite } from "../../helpers/service.js";

// Replays, request for request, what vcon-server's `datatrails` link (conserver/links/datatrails,
// link_version 0.3.0) sends for each fixture vCon, read from its code: a form-encoded client
// credentials token; the day's "droid" asset looked up by three attributes (GET with a JSON
// content type and no body); the asset created when missing (`public: false`); a Record event
// with its 12 attributes, `timestamp_declared` being `vcon.updated_at or vcon.created_at`, so
// null for a vCon without either; and an asset-free v1 event with the same attributes and the
// subject as its only trail. The link raises on any status >= 400, which dead-letters the vCon.
const suite = serviceForSuite();

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

/** The link's headers: bearer token, its user agent and partner id, and a JSON content type on every call. */
const linkHeaders = (token: string) => ({
  Authorization: `Bearer ${token}`,
  "DataTrails-User-Agent": "oss/conserverlink/0.3.0",
  "DataTrails-Partner-ID": "interop-test",
  "Content-Type": "application/json",
});

async function linkToken(): Promise<string> {
  const res = await fetch(`${suite.s.url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    // requests.post(url, data={...}) sends a form.
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: suite.s.a.clientId,
      client_secret: suite.s.a.clientSecret,
    }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { access_token: string; expires_in: number };
  // The link refreshes 300 s before expiry: a shorter lifetime would make it fetch a token per call.
  expect(body.expires_in).toBeGreaterThan(300);
  return body.access_token;
}

async function call(method: string, path: string, token: string, json?: unknown): Promise<Rec> {
  const res = await fetch(`${suite.s.url}/archivist${path}`, {
    method,
    headers: linkHeaders(token),
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(400);
  return (await res.json()) as Rec;
}

/** One run of the link's `run()` for a vCon; returns the asset event and the v1 event it created. */
async function runLink(doc: Doc, payload: string): Promise<{ assetEvent: Rec; event: Rec }> {
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
  const subject = `vcon://${uuidOf(doc)}`;
  const attributes = {
    arc_display_type: "vcon_created",
    arc_event_type: "vcon_created",
    conserver_link: "DataTrails",
    conserver_link_name: "datatrails_it",
    conserver_link_version: "0.3.0",
    payload,
    payload_hash_alg: "SHA-256",
    payload_preimage_content_type: "application/vcon+json",
    subject,
    timestamp_declared: (doc.updated_at ?? doc.created_at ?? null) as string | null,
    vcon_draft_version: "01",
    vcon_operation: "vcon_created",
  };
  const assetEvent = await call("POST", `/v2/${assetId}/events`, token, {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: attributes,
  });
  const event = await call("POST", "/v1/events", token, { attributes, trails: [subject] });
  return { assetEvent, event };
}

const committed = (path: string) => committedRecord<Rec>(suite.s, suite.token, path);

describe("vcon-server's datatrails link, replayed", () => {
  it("records every fixture vCon: one droid asset, asset events and v1 events, all committed with receipts that verify", async () => {
    expect(fixtures.length).toBe(9);
    const made: Array<{ file: string; doc: Doc; assetEvent: Rec; event: Rec }> = [];
    for (const file of fixtures) {
      const doc = fixtureJson<Doc>(`vcon/${file}`);
      const payload = hashes[file]?.sha256_vcon_server_after_read_normalization;
      expect(payload, file).toMatch(/^[0-9a-f]{64}$/);
      made.push({ file, doc, ...(await runLink(doc, payload as string)) });
    }
    // Every vCon of the day hangs off one asset, found again by its attributes.
    expect(new Set(made.map((m) => String(m.assetEvent.asset_identity))).size).toBe(1);
    const nulls = made.filter((m) => m.doc.updated_at === undefined && m.doc.created_at === undefined);
    expect(nulls.length).toBeGreaterThan(0);

    const keys = keysFromKeySet(
      new Uint8Array(await (await suite.s.api("/.well-known/scitt-keys")).arrayBuffer()),
    );
    for (const m of made) {
      for (const rec of [
        await committed(`/archivist/v2/${m.assetEvent.identity}`),
        await committed(`/archivist/v1/${m.event.identity}`),
      ]) {
        const attrs = (rec.event_attributes ?? rec.attributes) as Record<string, unknown>;
        // Stored as sent: the custom arc_ attribute and a null timestamp alike.
        expect(attrs.arc_event_type, m.file).toBe("vcon_created");
        expect(attrs.timestamp_declared, m.file).toBe(m.doc.updated_at ?? m.doc.created_at ?? null);
        const uuid = rec.identity.split("/").at(-1);
        const res = await suite.s.api(`/archivist/v1/receipts/events/${uuid}`, { token: suite.token });
        expect(res.status, m.file).toBe(200);
        const verdict = verifyRecordReceipt(rec, new Uint8Array(await res.arrayBuffer()), keys);
        expect(verdict, `${m.file} ${rec.identity} ${JSON.stringify(verdict)}`).toMatchObject({ ok: true });
      }
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
        {
          token: suite.token,
        },
      )
    ).json()) as { events: Rec[] };
    expect(trail.events.map((e) => e.identity)).toContain(first.assetEvent.identity);
  });
});
