import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { type ChildService, startChild } from "./child-service.js";
import { freshPostgresDatabase, testEngine } from "./databases.js";
import { seedPglite } from "./pglite-template.js";
import { freePort } from "./ports.js";

/**
 * Services run as child processes (`archivist serve` or `worker`) that a test may SIGKILL and
 * start again: a temporary folder with the owner's bootstrap file, and each deployment its own
 * data folder (its key directory carries its database's signed log states, which a second
 * database beside them would be held as a restore of) and, on the postgres project, its own fresh
 * database. Every child is killed and every database dropped after the file's tests.
 */
export function childDeployments(label: string) {
  const dir = mkdtempSync(join(tmpdir(), `archivist-${label}-`));
  const owner = { client_id: randomUUID(), client_secret: `secret-${randomUUID()}` };
  const bootstrap = join(dir, "bootstrap.json");
  writeFileSync(bootstrap, JSON.stringify({ tenancies: [{ display_name: label, owner }] }));
  const children: ChildService[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of children) await c.kill();
    for (const c of cleanups) await c();
    rmSync(dir, { recursive: true, force: true });
  });
  let deployments = 0;
  const token = async (url: string): Promise<string> => {
    const res = await fetch(`${url}/archivist/iam/v1/appidp/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", ...owner }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  return {
    dir,
    /** A new deployment's environment: fast commits and seals, and what `extra` sets. */
    async env(extra: Record<string, string> = {}): Promise<Record<string, string>> {
      const env: Record<string, string> = {
        DATA_DIR: join(dir, `data-${++deployments}`),
        ARCHIVIST_BOOTSTRAP_FILE: bootstrap,
        ARCHIVIST_COMMIT_MAX_DELAY_MS: "20",
        ARCHIVIST_SEAL_INTERVAL_MS: "100",
        ...extra,
      };
      if (testEngine() === "postgres") {
        const db = await freshPostgresDatabase();
        cleanups.push(db.drop);
        env.DATABASE_URL = db.url;
      } else if (!extra.DATABASE_URL) await seedPglite(env.DATA_DIR as string);
      return env;
    },
    /** Starts a child on a free port; it is killed after the file's tests if the test does not. */
    async start(
      command: "serve" | "worker",
      env: Record<string, string>,
      preload: string[] = [],
    ): Promise<ChildService> {
      const child = await startChild(command, env, await freePort(), undefined, preload);
      children.push(child);
      return child;
    },
    /** The owner's token at a child's address. */
    token,
    /**
     * A new asset of the owner's at a child's address: its identity, its tenancy's uuid, and
     * `record`, which POSTs a RecordEvidence event of these attributes on it (the answer as is: a
     * child may be killed under the request).
     */
    async asset(url: string, displayType: string) {
      const headers = { authorization: `Bearer ${await token(url)}`, "content-type": "application/json" };
      const asset = (await (
        await fetch(`${url}/archivist/v2/assets`, {
          method: "POST",
          headers,
          body: JSON.stringify({ attributes: { arc_display_type: displayType } }),
        })
      ).json()) as { identity: string; tenant_identity: string };
      return {
        identity: asset.identity,
        tenant: asset.tenant_identity.replace("tenant/", ""),
        record: (event_attributes: Record<string, string>) =>
          fetch(`${url}/archivist/v2/${asset.identity}/events`, {
            method: "POST",
            headers,
            body: JSON.stringify({ operation: "Record", behaviour: "RecordEvidence", event_attributes }),
          }),
      };
    },
  };
}
