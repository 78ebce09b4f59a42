import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { StorageError } from "../../../src/store/drivers/db.js";
import { openPglite } from "../../../src/store/drivers/pglite.js";

const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "archivist-lock-"));
const pgdata = join(dataDir, "pgdata");
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `archivist scan` on `dataDir` in its own process: its exit code and what it wrote to stderr. */
function scan(): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ["--import", "tsx", MAIN, "scan"], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "warn" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    proc.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    proc.once("exit", (code) => resolve({ code, stderr }));
  });
}

describe("the embedded database's directory lock", () => {
  it("keeps a second process (and a second open) away while one has it open", {
    timeout: 60_000,
  }, async () => {
    const db = await openPglite(pgdata);
    try {
      expect(readFileSync(`${pgdata}.lock`, "utf8")).toBe(String(process.pid));
      await expect(openPglite(pgdata)).rejects.toThrow(StorageError);
      const refused = await scan();
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`is open in process ${process.pid}`);
      expect(refused.stderr).toContain("DATABASE_URL");
    } finally {
      await db.close();
    }
    expect(existsSync(`${pgdata}.lock`)).toBe(false);
    expect((await scan()).code).toBe(0);
  });

  it("takes over a lock its holder left when it died", async () => {
    // The pid of a process that has exited: nothing runs under it any more.
    const dead = spawnSync(process.execPath, [
      "-e",
      "process.stdout.write(String(process.pid))",
    ]).stdout.toString();
    writeFileSync(`${pgdata}.lock`, dead);
    const db = await openPglite(pgdata);
    expect(readFileSync(`${pgdata}.lock`, "utf8")).toBe(String(process.pid));
    await db.close();
  });

  it("takes over a lock naming its own pid that it does not hold (a container restarted as pid 1)", async () => {
    writeFileSync(`${pgdata}.lock`, String(process.pid));
    const db = await openPglite(pgdata);
    try {
      await expect(openPglite(pgdata)).rejects.toThrow(StorageError);
    } finally {
      await db.close();
    }
    expect(existsSync(`${pgdata}.lock`)).toBe(false);
  });
});
