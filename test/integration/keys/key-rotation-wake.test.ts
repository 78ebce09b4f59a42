import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysCommand } from "../../../src/cli/keys.js";
import { runCli } from "../../helpers/cli-output.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { startTestService, type TestService } from "../../helpers/service.js";

// Issue 51: a rotation reaches running processes at once through Redis (the `keys` wake-up),
// not only at their next re-read of the key directory. The service re-reads it only every
// minute here; `archivist keys rotate`, run as another process would (its own keyring and
// database, the same key directory and Redis), must still make it sign with the new key now.
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const keyDir = mkdtempSync(join(tmpdir(), "archivist-rotate-wake-"));
const scratch = mkdtempSync(join(tmpdir(), "archivist-rotate-cli-"));
let s: TestService;
let cliDb: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_KEY_DIR: keyDir, ARCHIVIST_KEY_RELOAD_MS: "60000", REDIS_URL });
  cliDb = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
}, 120_000);
afterAll(async () => {
  await s?.stop();
  await cliDb?.drop();
  rmSync(keyDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const firstKid = async () => {
  const jwks = (await (await s.api("/appidpv1/.well-known/jwks.json")).json()) as {
    keys: Array<{ kid: string }>;
  };
  return jwks.keys[0]?.kid;
};

describe(`a rotation reaches running processes through Redis (${testEngine()})`, () => {
  it("the service signs tokens with the new key as soon as the rotation's wake-up arrives", {
    timeout: 120_000,
  }, async () => {
    const before = await firstKid();
    expect(before).toBeDefined();
    const r = await runCli(
      (a) => keysCommand.run(a),
      [
        "rotate",
        "token",
        "--key-dir",
        keyDir,
        "--redis-url",
        REDIS_URL,
        "--data-dir",
        scratch,
        ...(cliDb ? ["--database-url", cliDb.url] : []),
      ],
    );
    expect(r.code, r.out).toBe(0);
    const rotated = /; (\S+) \(key-directory\) signs from now on/.exec(r.out)?.[1];
    // Well within the minute the service would otherwise wait.
    await until(async () => ((await firstKid()) === rotated ? true : undefined), 20_000);
    const token = await s.token(s.b);
    expect(JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString()).kid).toBe(rotated);
    expect((await s.api("/archivist/v2/assets", { token })).status).toBe(200);
  });
});
