import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AssetResolver } from "../../../plugins/conserver/delivery/assets.js";
import { ArchivistClient } from "../../../plugins/conserver/delivery/client.js";
import { deliver, eventLookups, eventPosts } from "../../../plugins/conserver/delivery/deliver.js";
import type { DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import { TokenSource } from "../../../plugins/conserver/delivery/token-source.js";
import { buildVconEvent } from "../../../plugins/conserver/template.js";
import { parseVcon } from "../../../plugins/conserver/vcon.js";
import { DEFAULT_RETRY_POLICY } from "../../../src/client/index.js";
import { eventToStatement } from "../../../src/core/scitt/index.js";
import { serviceAsUsersRunIt } from "../../helpers/as-users-run-it.js";
import type { ChildService } from "../../helpers/child-service.js";
import { testEngine } from "../../helpers/databases.js";
import { freePort } from "../../helpers/ports.js";
import { deterministicSigner, vectorPublicKey } from "../../helpers/vector-key.js";

// Issue 31: the tests started the service with a bootstrap file, which warmed the keyring at
// start; a user's `npm start` has none, and on PGlite the first event after a restart wedged the
// service. This starts it as `npm start` does (its own process, no bootstrap file: the default
// tenancy is made on first start), stops it with SIGTERM, starts it again and makes each kind of
// write once. Each request has a deadline, so a wedge fails the test instead of hanging it.
const users = serviceAsUsersRunIt("users-restart", {
  ARCHIVIST_COMMIT_MAX_DELAY_MS: "50",
  ARCHIVIST_SEAL_INTERVAL_MS: "200",
});
const dataDir = users.dataDir;

const DEADLINE_MS = 20_000;
const quiet = pino({ level: "silent" });

async function start(): Promise<ChildService> {
  return users.start(await freePort());
}

/** SIGTERM, as Ctrl-C or `docker stop` sends: the process ends by itself, with status 0. */
async function stop(s: ChildService): Promise<number | null> {
  const exited = new Promise<number | null>((r) => s.proc.once("exit", (code) => r(code)));
  s.proc.kill("SIGTERM");
  const code = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 30_000))]);
  if (code === "hung") {
    s.proc.kill("SIGKILL");
    throw new Error("the service did not exit within 30 s of SIGTERM");
  }
  return code;
}

interface Credentials {
  client_id: string;
  client_secret: string;
}

async function tokenOf(url: string, c: Credentials): Promise<string> {
  const res = await fetch(`${url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", ...c }),
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** One request with a deadline: its status and JSON (or text) body. */
async function call(url: string, token: string, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${token}`);
  const res = await fetch(`${url}${path}`, { ...init, headers, signal: AbortSignal.timeout(DEADLINE_MS) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (a COSE receipt)
  }
  return { status: res.status, body: body as Record<string, unknown>, location: res.headers.get("location") };
}

const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** A conserver's delivery of one operation on a vCon, through the plugin's typed client, as its worker runs it. */
function delivery(url: string, c: Credentials, vconUuid: string, operation: string) {
  const doc = parseVcon(
    JSON.stringify({
      vcon: "0.0.2",
      uuid: vconUuid,
      parties: [],
      created_at: "2024-01-01T00:00:00Z",
      op: operation,
    }),
  );
  const event = buildVconEvent(doc, operation, { link: "archivist", linkName: "restart", hashMode: "raw" });
  const attrs = event.event_attributes;
  const backend = { url, clientId: c.client_id, clientSecret: c.client_secret };
  const job: DeliveryJob = {
    idempotencyKey: `${vconUuid}:${attrs.vcon_operation}:${attrs.payload}`,
    vconUuid,
    event,
    backend,
  };
  // A fresh resolver: the conserver restarted too, so it looks the vCon's asset up through the API.
  const client = new ArchivistClient(backend, new TokenSource(backend), {
    policy: DEFAULT_RETRY_POLICY,
    signal: AbortSignal.timeout(DEADLINE_MS),
    log: quiet,
  });
  return deliver(
    client,
    new AssetResolver(),
    eventLookups(),
    eventPosts(),
    job,
    AbortSignal.timeout(DEADLINE_MS),
  );
}

describe(`restart as users run the service (${testEngine()})`, () => {
  it("after npm start, SIGTERM and a second start, every kind of write answers: asset, event on an existing asset, asset-free event, blob, SCITT registration, conserver delivery", {
    timeout: 240_000,
  }, async () => {
    const vcon = randomUUID();
    // First life: the default tenancy is made, its credentials written to bootstrap.json.
    const first = await start();
    const creds = JSON.parse(readFileSync(join(dataDir, "bootstrap.json"), "utf8")) as Credentials & {
      tenant: string;
    };
    let token = await tokenOf(first.url, creds);
    const asset = await call(first.url, token, "/archivist/v2/assets", json({ attributes: { k: "before" } }));
    expect(asset.status).toBe(200);
    const jwk = vectorPublicKey.jwk;
    const key = await call(
      first.url,
      token,
      "/archivist/v1/scitt/keys",
      json({ kid: "restart-key", public_jwk: jwk }),
    );
    expect(key.status).toBe(200);
    expect(await delivery(first.url, creds, vcon, "created")).toBe("delivered");
    expect(await stop(first)).toBe(0);

    // Second life: nothing warmed; the first write is the event that wedged PGlite.
    const second = await start();
    token = await tokenOf(second.url, creds);
    const event = await call(
      second.url,
      token,
      `/archivist/v2/${asset.body.identity}/events`,
      json({ operation: "Record", behaviour: "RecordEvidence", event_attributes: { after: "restart" } }),
    );
    expect(event.status, JSON.stringify(event.body)).toBe(200);
    const newAsset = await call(
      second.url,
      token,
      "/archivist/v2/assets",
      json({ attributes: { k: "after" } }),
    );
    expect(newAsset.status).toBe(200);
    const free = await call(
      second.url,
      token,
      "/archivist/v1/events",
      json({ attributes: { arc_display_type: "restart", k: "v" }, trails: ["restart"] }),
    );
    expect(free.status, JSON.stringify(free.body)).toBe(200);
    const form = new FormData();
    form.append("file", new Blob(["bytes kept across a restart\n"], { type: "text/plain" }), "restart.txt");
    const blob = await call(second.url, token, "/archivist/v1/blobs", { method: "POST", body: form });
    expect(blob.status, JSON.stringify(blob.body)).toBe(200);
    const statement = eventToStatement(
      {
        arc_display_type: "vcon_created",
        payload: Buffer.alloc(32, 7).toString("hex"),
        payload_hash_alg: "SHA-256",
        payload_preimage_content_type: "application/vcon+json",
        subject: `vcon://${vcon}`,
        timestamp_declared: "2025-01-01T00:00:00Z",
        vcon_operation: "vcon_created",
        vcon_draft_version: "01",
        scitt_draft_version: "10",
      },
      { issuer: "https://conserver.example", kid: "restart-key" },
      deterministicSigner,
    );
    const registered = await call(second.url, token, "/entries", {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: Buffer.from(statement),
      redirect: "manual",
    });
    expect([201, 202], JSON.stringify(registered.body)).toContain(registered.status);
    expect(registered.location).toMatch(/\/entries\/events_/);
    // A later operation on the vCon the conserver delivered before the restart: found, not created.
    expect(await delivery(second.url, creds, vcon, "enhanced")).toBe("delivered");
    const q = new URLSearchParams({ "attributes.subject": `vcon://${vcon}` });
    const vconAssets = await call(second.url, token, `/archivist/v2/assets?${q}`);
    expect((vconAssets.body.assets as unknown[]).length).toBe(1);

    // Still answering, and every write of both lives is there.
    const ready = await fetch(`${second.url}/readyz`, { signal: AbortSignal.timeout(DEADLINE_MS) });
    expect(ready.status).toBe(200);
    const events = await call(second.url, token, `/archivist/v2/${asset.body.identity}/events`);
    expect((events.body.events as unknown[]).length).toBe(2);
    expect(await stop(second)).toBe(0);
  });
});
