import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { startService } from "../../../src/server.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";

const dir = mkdtempSync(join(tmpdir(), "archivist-restart-"));
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  rmSync(dir, { recursive: true, force: true });
});

describe("restart", () => {
  it("keeps records, keys and issued tokens", async () => {
    const owner = { client_id: randomUUID(), client_secret: `secret-${randomUUID()}` };
    writeFileSync(join(dir, "boot.json"), JSON.stringify({ tenancies: [{ display_name: "R", owner }] }));
    const pg = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
    if (pg) cleanups.push(pg.drop);
    const config = () =>
      loadConfig(
        {},
        {
          PORT: "0",
          BASE_URL: "http://archivist.test",
          DATA_DIR: join(dir, "data"),
          ARCHIVIST_BOOTSTRAP_FILE: join(dir, "boot.json"),
          LOG_LEVEL: "silent",
          ...(pg ? { DATABASE_URL: pg.url } : {}),
        },
      );
    const first = await startService(config());
    const res = await fetch(`${first.url}/archivist/iam/v1/appidp/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", ...owner }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const asset = (await (
      await fetch(`${first.url}/archivist/v2/assets`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ attributes: { k: "v" } }),
      })
    ).json()) as { identity: string };
    await first.close();
    const second = await startService(config());
    cleanups.push(() => second.close());
    const again = await fetch(`${second.url}/archivist/v2/${asset.identity}`, { headers: auth });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { attributes: Record<string, string> }).attributes.k).toBe("v");
  });
});
