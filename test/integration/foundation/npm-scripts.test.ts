import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { freePort } from "../../helpers/ports.js";

// A supervisor, a `kill $PID` in a script (the README's witness) or a container's stop signals
// npm, not the service: npm hands SIGTERM to its child, the script's shell. Without `exec` that
// shell did not pass it on, so the service kept running (and its port taken) after npm exited.
// Each long-lived npm script now execs node, so the signal reaches the service itself.
const engine = testEngine();
const root = fileURLToPath(new URL("../../..", import.meta.url));
const data = mkdtempSync(join(tmpdir(), "archivist-npm-"));
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  rmSync(data, { recursive: true, force: true });
});

const answers = (url: string) =>
  fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  );

describe(`npm scripts pass signals to the service (${engine})`, () => {
  for (const script of [["start"], ["run", "-s", "archivist", "--", "serve"]]) {
    it(`npm ${script.join(" ")}: SIGTERM to npm stops the service and frees its port`, {
      timeout: 180_000,
    }, async () => {
      const port = await freePort();
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        DATA_DIR: mkdtempSync(join(data, "d-")),
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        ARCHIVIST_BOOTSTRAP_FILE: "",
        REDIS_URL: "",
        DATABASE_URL: "",
      };
      // vitest's own BASE_URL ("/") is no user's.
      delete env.BASE_URL;
      if (engine === "postgres") {
        const db = await freshPostgresDatabase();
        cleanups.push(db.drop);
        env.DATABASE_URL = db.url;
      }
      // Its own process group, so that the clean-up can end npm, its shell and the service at once.
      const npm = spawn("npm", script, { cwd: root, env, stdio: "ignore", detached: true });
      const npmExited = new Promise<void>((r) => npm.once("exit", () => r()));
      cleanups.push(async () => {
        // Whatever the outcome, nothing of this test keeps running.
        try {
          process.kill(-(npm.pid as number), "SIGKILL");
        } catch {
          // The group has ended already.
        }
      });
      const url = `http://127.0.0.1:${port}`;
      await until(async () => ((await answers(url)) ? true : undefined), 150_000, 250);
      npm.kill("SIGTERM");
      await npmExited;
      // The service's own shutdown bound (ARCHIVIST_SHUTDOWN_TIMEOUT_MS, 8 s) and then some.
      await until(async () => ((await answers(url)) ? undefined : true), 15_000, 250);
      expect(await answers(url)).toBe(false);
    });
  }
});
