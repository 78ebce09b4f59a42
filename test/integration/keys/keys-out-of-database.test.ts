import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serviceAsUsersRunIt } from "../../helpers/as-users-run-it.js";
import type { ChildService } from "../../helpers/child-service.js";
import { testEngine } from "../../helpers/databases.js";
import { filesUnder, found, keyDirectoryNeedles } from "../../helpers/key-material.js";
import { until } from "../../helpers/poll.js";
import { freePort } from "../../helpers/ports.js";
import { vconEvent } from "../../helpers/vcon-event.js";

// Issue 51: every private key lived in the `signing_keys` table, so a database dump could sign
// as the service. This runs the service as `npm start` does (no configuration but where its data
// goes), makes it sign everything it signs (seals, receipts of both profiles, statements,
// checkpoints, tokens), restarts it (the same keys again), and then looks for every private key
// of the key directory, in every form, in a dump of the database (pg_dump; PGlite's files), in
// everything it logged at debug level, and in every answer it gave, evidence bundle included.
const users = serviceAsUsersRunIt("keys-out", {
  LOG_LEVEL: "debug",
  ARCHIVIST_COMMIT_MAX_DELAY_MS: "50",
  ARCHIVIST_SEAL_INTERVAL_MS: "200",
});
const dataDir = users.dataDir;
const logs: string[] = [];

let port: number | undefined;
async function start(): Promise<ChildService> {
  // One address for both lives (vitest's own BASE_URL of "/" must not reach the child either).
  port ??= await freePort();
  return users.start(port, { BASE_URL: `http://127.0.0.1:${port}` });
}

async function stop(s: ChildService): Promise<void> {
  const exited = new Promise<number | null>((r) => s.proc.once("exit", (code) => r(code)));
  s.proc.kill("SIGTERM");
  expect(await exited).toBe(0);
  logs.push(s.output());
}

/** Every answer read, to be searched for key material. */
const answers: Buffer[] = [];

async function get(url: string, token?: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(url, {
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  const body = Buffer.from(await res.arrayBuffer());
  answers.push(body);
  return new Response(res.status === 204 ? null : body, { status: res.status, headers: res.headers });
}

async function post(url: string, token: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  answers.push(Buffer.from(text));
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The published keys, to compare across a restart. */
async function publishedKeys(url: string, tenant: string): Promise<string[]> {
  return Promise.all(
    [
      "/.well-known/scitt-keys",
      "/appidpv1/.well-known/jwks.json",
      `/archivist/v1/merklelogs/${tenant}/tlog/key`,
      `/archivist/v1/merklelogs/${tenant}/tlog/key-ml-dsa-44`,
      "/archivist/v1/archivistnode",
    ].map(async (p) => Buffer.from(await (await get(`${url}${p}`)).arrayBuffer()).toString("base64")),
  );
}

function modes(path: string): Array<[string, string]> {
  const out: Array<[string, string]> = [[path, (statSync(path).mode & 0o777).toString(8)]];
  for (const name of readdirSync(path)) {
    const p = join(path, name);
    if (statSync(p).isDirectory()) out.push(...modes(p));
    else out.push([p, (statSync(p).mode & 0o777).toString(8)]);
  }
  return out;
}

describe(`private keys are kept out of the database (${testEngine()})`, () => {
  it("npm start makes its keys in data/keys, a restart reuses them, and no dump, log, answer or bundle holds one", {
    timeout: 300_000,
  }, async () => {
    const first = await start();
    const creds = JSON.parse(readFileSync(join(dataDir, "bootstrap.json"), "utf8")) as {
      client_id: string;
      client_secret: string;
      tenant: string;
    };
    const tenant = creds.tenant.replace(/^tenant\//, "");
    const tokenRes = await fetch(`${first.url}/archivist/iam/v1/appidp/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", ...creds }),
    });
    const tokenText = await tokenRes.text();
    answers.push(Buffer.from(tokenText));
    const token = (JSON.parse(tokenText) as { access_token: string }).access_token;

    // Everything the service signs: an asset event under a seal, both receipts, its statement,
    // a checkpoint, the evidence bundle (which carries the keys it was checked with).
    const vcon = randomUUID();
    const asset = (await post(`${first.url}/archivist/v2/assets`, token, {
      attributes: { arc_display_type: "vcon", arc_display_name: vcon },
    })) as { identity: string };
    const event = (await post(
      `${first.url}/archivist/v2/${asset.identity}/events`,
      token,
      vconEvent(vcon, "vcon_created", "2026-01-02"),
    )) as { identity: string };
    for (const profile of ["mmr", "rfc9162"])
      await until(async () => {
        const r = await get(`${first.url}/archivist/v1/receipts/${event.identity}?profile=${profile}`, token);
        return r.status === 200 ? true : undefined;
      });
    const statement = await get(
      `${first.url}/archivist/v2/${event.identity}/statement?transparent=true`,
      token,
    );
    expect(statement.status).toBe(200);
    expect((await get(`${first.url}/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).status).toBe(200);
    const bundle = await get(
      `${first.url}/archivist/v1/evidence/assets/${asset.identity.replace("assets/", "")}`,
      token,
    );
    expect(bundle.status, await bundle.clone().text()).toBe(200);
    for (const p of [
      "/jwks",
      "/.well-known/transparency-configuration",
      "/appidpv1/.well-known/openid-configuration",
      `/archivist/v1/merklelogs/${tenant}/seals/latest`,
      "/archivist/v1/tenancies/self",
      "/archivist/iam/v1/subjects",
      "/archivist/iam/v1/subjects/00000000-0000-0000-0000-000000000000:export",
    ])
      await get(`${first.url}${p}`, token);
    const before = await publishedKeys(first.url, tenant);

    // The keys are files of data/keys: the directories 0700, every file 0600.
    const keyDir = join(dataDir, "keys");
    const wrong = modes(keyDir).filter(([p, m]) => m !== (statSync(p).isDirectory() ? "700" : "600"));
    expect(wrong).toEqual([]);
    for (const purpose of ["seal", "token", "tlog", "tlog-ml-dsa-44", "page-token", `issuer:${tenant}`])
      expect(readdirSync(join(keyDir, purpose))).toContain("keys.json");

    await stop(first);
    const second = await start();
    expect(await publishedKeys(second.url, tenant)).toEqual(before);
    await stop(second);

    const needles = keyDirectoryNeedles(keyDir);
    // The search can fail: every key file holds what it looks for.
    expect(needles.length).toBeGreaterThan(40);
    const sealFile = readdirSync(join(keyDir, "seal")).find((f) => f.endsWith(".pem")) as string;
    expect(found(readFileSync(join(keyDir, "seal", sealFile)), needles)).not.toEqual([]);

    const inDump: string[] = [];
    if (users.databaseUrl) {
      const dump = execFileSync("pg_dump", ["--no-owner", users.databaseUrl], { maxBuffer: 1 << 30 });
      expect(dump.toString()).toContain("tlog_checkpoints");
      inDump.push(...found(dump, needles));
    } else {
      let files = 0;
      for (const f of filesUnder(join(dataDir, "pgdata"))) {
        files++;
        inDump.push(...found(f.bytes, needles).map((n) => `${n} in ${f.path}`));
      }
      expect(files).toBeGreaterThan(100);
    }
    expect(inDump).toEqual([]);
    const log = Buffer.from(logs.join("\n"));
    expect(log.toString()).toContain("archivist started");
    expect(found(log, needles)).toEqual([]);
    expect(found(Buffer.concat(answers), needles)).toEqual([]);
  });
});
