import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { type RunningService, startService } from "../../../src/server.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";

const dir = mkdtempSync(join(tmpdir(), "archivist-base-url-"));
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, env: Record<string, string>): Promise<RunningService> {
  const pg = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
  if (pg) cleanups.push(pg.drop);
  const config = loadConfig(
    {},
    {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: join(dir, name),
      LOG_LEVEL: "silent",
      ...(pg ? { DATABASE_URL: pg.url } : {}),
      ...env,
    },
  );
  const service = await startService(config);
  cleanups.push(() => service.close());
  return service;
}

const discovery = async (s: RunningService) =>
  (await (await fetch(`${s.url}/appidpv1/.well-known/openid-configuration`)).json()) as {
    issuer: string;
    token_endpoint: string;
  };

describe(`the base URL is derived once, where the service listens (${testEngine()})`, () => {
  it("without BASE_URL, the address of the port bound (PORT=0 lets the system choose)", async () => {
    const s = await start("derived", {});
    expect(s.ctx.config.baseUrl).toBeUndefined();
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*$/);
    expect(s.ctx.baseUrl).toBe(s.url);
    const d = await discovery(s);
    expect(d.token_endpoint).toBe(`${s.url}/archivist/iam/v1/appidp/token`);
    expect(d.issuer.startsWith(s.url)).toBe(true);
  });

  it("with BASE_URL, that URL whatever the port", async () => {
    const s = await start("explicit", { BASE_URL: "https://archivist.example/" });
    expect(s.ctx.baseUrl).toBe("https://archivist.example");
    expect((await discovery(s)).token_endpoint).toBe(
      "https://archivist.example/archivist/iam/v1/appidp/token",
    );
  });

  it("leaves the configuration as it was read: it cannot be changed", async () => {
    const s = await start("frozen", {});
    expect(Object.isFrozen(s.ctx.config)).toBe(true);
    expect(() => {
      (s.ctx.config as { baseUrl: string | undefined }).baseUrl = "http://elsewhere";
    }).toThrow(TypeError);
    expect(s.ctx.config.baseUrl).toBeUndefined();
  });
});
