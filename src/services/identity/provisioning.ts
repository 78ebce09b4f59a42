import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { Ctx } from "../../context.js";
import { getApplication, insertApplication, updateApplication } from "../../store/identity/applications.js";
import { upsertMember } from "../../store/identity/members.js";
import { listTenancies, upsertTenancy } from "../../store/identity/tenancies.js";
import { hashGeneratedSecret, hashSecret, newSecret, verifySecret } from "./secrets.js";
import { ensureSelfSubject } from "./self-subject.js";

const quota = z.number().int().nonnegative();
const bootstrapSchema = z.object({
  tenancies: z.array(
    z.object({
      id: z.uuid().optional(),
      display_name: z.string().min(1),
      owner: z.object({ client_id: z.uuid(), client_secret: z.string().min(16) }),
      members: z
        .array(
          z.object({
            email: z.email(),
            display_name: z.string().default(""),
            roles: z.array(z.string()).default([]),
          }),
        )
        .default([]),
      quotas: z.record(z.string(), quota).default({}),
      oidc: z.object({ issuer: z.string().min(1), jwks_url: z.url() }).optional(),
    }),
  ),
});

type BootstrapFile = z.infer<typeof bootstrapSchema>;
type TenancySpec = BootstrapFile["tenancies"][number];

// Provisioned owner credentials are managed by whoever holds the file; they do not expire.
const FAR_FUTURE = new Date("9999-12-31T00:00:00Z");

/** Reads and validates a JSON or YAML bootstrap file. */
function readBootstrapFile(path: string): BootstrapFile {
  const text = readFileSync(path, "utf8");
  const data: unknown = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  const r = bootstrapSchema.safeParse(data);
  if (!r.success)
    throw new Error(
      `bootstrap file ${path}: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return r.data;
}

/**
 * `generated`: the owner's secret is one we made (256 random bits, stored with a fast hash);
 * otherwise an operator chose it, and it is stored with scrypt (src/services/identity/secrets.ts).
 */
async function applyTenancy(
  ctx: Pick<Ctx, "caches" | "db" | "keys">,
  spec: TenancySpec,
  generated = false,
): Promise<string> {
  const store = (secret: string) => (generated ? hashGeneratedSecret(secret) : hashSecret(secret));
  const existing = await getApplication(ctx.db, spec.owner.client_id);
  const tenantId = existing?.tenant_id ?? spec.id ?? randomUUID();
  await upsertTenancy(ctx.db, {
    id: tenantId,
    display_name: spec.display_name,
    quotas: spec.quotas,
    oidc: spec.oidc ?? null,
  });
  if (!existing) {
    await insertApplication(ctx.db, {
      id: spec.owner.client_id,
      tenant_id: tenantId,
      display_name: `${spec.display_name} owner`,
      custom_claims: {},
      roles: ["Owner"],
      secret_hash: await store(spec.owner.client_secret),
      valid_from: new Date(0),
      valid_until: FAR_FUTURE,
    });
  } else if (
    !(await verifySecret(spec.owner.client_secret, existing.secret_hash, ctx.caches.verifiedSecrets))
  ) {
    await updateApplication(ctx.db, tenantId, existing.id, {
      secret_hash: await store(spec.owner.client_secret),
    });
  }
  for (const m of spec.members) {
    await upsertMember(ctx.db, {
      id: randomUUID(),
      tenant_id: tenantId,
      email: m.email,
      display_name: m.display_name,
      roles: m.roles,
      active: true,
    });
  }
  await ensureSelfSubject(ctx.db, ctx.keys, tenantId, spec.display_name);
  ctx.caches.sharing.forget();
  return tenantId;
}

/** Applies the bootstrap file idempotently; with none and an empty store, makes the default tenancy. */
export async function provision(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "config" | "db" | "keys" | "log">,
): Promise<void> {
  if (ctx.config.bootstrapFile) {
    for (const spec of readBootstrapFile(ctx.config.bootstrapFile).tenancies) {
      const id = await applyTenancy(ctx, spec);
      ctx.log.info({ tenant: id, display_name: spec.display_name }, "tenancy provisioned");
    }
    return;
  }
  if ((await listTenancies(ctx.db)).length > 0) return;
  const creds = { client_id: randomUUID(), client_secret: newSecret() };
  const tenant = await applyTenancy(
    ctx,
    { display_name: "Default tenancy", owner: creds, members: [], quotas: {} },
    true,
  );
  const out = { tenant: `tenant/${tenant}`, base_url: ctx.baseUrl, ...creds };
  const file = join(ctx.config.dataDir, "bootstrap.json");
  if (!ctx.config.dataDir.startsWith("memory://") && existsSync(ctx.config.dataDir)) {
    writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  process.stderr.write(
    `\nDefault tenancy created. Its owner credentials are shown once (also in ${file}, mode 0600):\n` +
      `  client_id:     ${creds.client_id}\n  client_secret: ${creds.client_secret}\n\n`,
  );
}
