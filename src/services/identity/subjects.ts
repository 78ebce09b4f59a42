import { randomUUID } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { type Ctx, type Principal, tenantIdentity } from "../../context.js";
import { badRequest, forbidden } from "../../errors/api-error.js";
import {
  deleteSubject,
  getSubject,
  insertSubject,
  type SubjectRow,
  subjectRows,
  updateSubject,
} from "../../store/identity/subjects.js";
import { adminCollection, identified } from "../admin-collection.js";
import { valuesOf } from "../records/list-query.js";
import { SELF_SUBJECT_ID, walletAddress } from "./self-subject.js";

// Keys are checked before the row is written, so a stored subject is already confirmed:
// create answers CONFIRMED and PENDING is never observed (clients poll until CONFIRMED).
const CONFIRMED = "CONFIRMED";

function refuseSelf(id: string, verb: string): void {
  if (id === SELF_SUBJECT_ID) throw forbidden(`the Self subject cannot be ${verb}`);
}

/** API shape of a subject; Self names this tenancy, an imported subject the other organisation. */
export function subjectOut(row: SubjectRow) {
  const columns = [
    "display_name",
    "wallet_pub_key",
    "wallet_address",
    "tessera_pub_key",
    "tenant",
    "confirmation_status",
  ] as const;
  return {
    // `tenant` keeps its place among the columns; Self's is this tenancy's identity.
    ...identified("subjects", row, columns),
    tenant: row.id === SELF_SUBJECT_ID ? tenantIdentity(row.tenant_id) : row.tenant,
  };
}

// Every write forgets the sharing the context keeps (subjects name whom records are shared with).
const subjects = adminCollection({
  forbidden: "owner privileges are needed to manage subjects",
  item: "subject",
  out: subjectOut,
  get: getSubject,
  delete: deleteSubject,
  list: (db, tenantId, pairs) =>
    subjectRows(db, tenantId, {
      displayName: valuesOf(pairs, "display_name"),
      walletAddress: valuesOf(pairs, "wallet_address"),
      confirmationStatus: valuesOf(pairs, "confirmation_status"),
    }),
  forget: (ctx: Pick<Ctx, "caches" | "db">) => ctx.caches.sharing.forget(),
});

const short = (key: string) => (key.length > 24 ? `${key.slice(0, 24)}…` : key);

/** Checks each wallet key is an uncompressed secp256k1 point (hex `04…`) on the curve; 400 naming the key. */
function validateWalletKeys(keys: string[], field = "wallet_pub_key"): void {
  keys.forEach((key, i) => {
    const hex = key.replace(/^0x/i, "");
    if (!/^04[0-9a-fA-F]{128}$/.test(hex))
      throw badRequest(
        `${field}[${i}] "${short(key)}" must be an uncompressed secp256k1 public key: 04 and 128 hex digits`,
      );
    try {
      secp256k1.Point.fromHex(hex);
    } catch {
      throw badRequest(`${field}[${i}] "${short(key)}" is not a point on the secp256k1 curve`);
    }
  });
}

/** Checks each tessera key is base64 of 32 bytes (an X25519 public key); 400 naming the key. */
function validateTesseraKeys(keys: string[], field = "tessera_pub_key"): void {
  keys.forEach((key, i) => {
    if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(key) || Buffer.from(key, "base64").length !== 32)
      throw badRequest(`${field}[${i}] "${short(key)}" must be base64 of a 32-byte key`);
  });
}

export interface SubjectInput {
  display_name: string;
  wallet_pub_key?: string[] | undefined;
  tessera_pub_key?: string[] | undefined;
}

async function storeSubject(
  ctx: Pick<Ctx, "caches" | "db">,
  p: Principal,
  input: SubjectInput,
  tenant: string,
) {
  const wallet = input.wallet_pub_key ?? [];
  const tessera = input.tessera_pub_key ?? [];
  validateWalletKeys(wallet);
  validateTesseraKeys(tessera);
  const row = await insertSubject(ctx.db, {
    tenant_id: p.tenantId,
    id: randomUUID(),
    display_name: input.display_name,
    wallet_pub_key: wallet,
    tessera_pub_key: tessera,
    wallet_address: wallet.map(walletAddress),
    confirmation_status: CONFIRMED,
    tenant,
  });
  ctx.caches.sharing.forget();
  return subjectOut(row);
}

/** Creates a subject from keys sent as they are (echoed exactly; addresses derived). */
export async function createSubject(ctx: Pick<Ctx, "caches" | "db">, p: Principal, input: SubjectInput) {
  subjects.requireAdmin(p);
  return storeSubject(ctx, p, input, "");
}

/** Encodes a subject as the string administrators hand to other organisations: base64 of its JSON. */
function encodeSubjectString(subject: ReturnType<typeof subjectOut>): string {
  return Buffer.from(JSON.stringify(subject)).toString("base64");
}

const stringList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string");

/** Decodes a subject string (base64 of JSON with wallet_pub_key, tessera_pub_key, display_name, tenant). */
function decodeSubjectString(s: string): {
  display_name: string;
  wallet_pub_key: string[];
  tessera_pub_key: string[];
  tenant: string;
} {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(s.replace(/\s+/g, ""), "base64").toString("utf8"));
  } catch {
    throw badRequest("subject_string must be base64 of a JSON subject");
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw badRequest("subject_string must be base64 of a JSON object");
  const o = data as Record<string, unknown>;
  for (const f of ["wallet_pub_key", "tessera_pub_key"])
    if (o[f] !== undefined && !stringList(o[f]))
      throw badRequest(`subject_string: ${f} must be a list of strings`);
  for (const f of ["display_name", "tenant"])
    if (o[f] !== undefined && typeof o[f] !== "string")
      throw badRequest(`subject_string: ${f} must be a string`);
  return {
    display_name: (o.display_name as string | undefined) ?? "",
    wallet_pub_key: (o.wallet_pub_key as string[] | undefined) ?? [],
    tessera_pub_key: (o.tessera_pub_key as string[] | undefined) ?? [],
    tenant: (o.tenant as string | undefined) ?? "",
  };
}

/** Imports another organisation's subject string; `display_name` sent overrides the string's own. */
export async function importSubject(
  ctx: Pick<Ctx, "caches" | "db">,
  p: Principal,
  input: { display_name?: string | undefined; subject_string: string },
) {
  subjects.requireAdmin(p);
  const s = decodeSubjectString(input.subject_string);
  const display_name = input.display_name || s.display_name;
  if (!display_name) throw badRequest("display_name is required (the subject string has none)");
  validateWalletKeys(s.wallet_pub_key, "subject_string: wallet_pub_key");
  validateTesseraKeys(s.tessera_pub_key, "subject_string: tessera_pub_key");
  return storeSubject(ctx, p, { ...s, display_name }, s.tenant);
}

/** One subject (Self included, as one object). */
export const readSubject = subjects.read;

/** The subject string of a subject, usually Self, to hand to another organisation's administrator. */
export async function exportSubject(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  return { subject_string: encodeSubjectString(await subjects.read(ctx, p, id)) };
}

/** The tenancy's subjects (Self included) an administrator lists, filtered by the query. */
export const subjectSource = subjects.source;

/** PATCH: each field sent replaces the stored one whole; wallet addresses follow the wallet keys. */
export async function patchSubject(
  ctx: Pick<Ctx, "caches" | "db">,
  p: Principal,
  id: string,
  patch: Partial<SubjectInput>,
) {
  const row = await subjects.write(ctx, p, (db, tenantId) => {
    refuseSelf(id, "updated");
    if (patch.wallet_pub_key) validateWalletKeys(patch.wallet_pub_key);
    if (patch.tessera_pub_key) validateTesseraKeys(patch.tessera_pub_key);
    return updateSubject(db, tenantId, id, {
      display_name: patch.display_name,
      wallet_pub_key: patch.wallet_pub_key,
      tessera_pub_key: patch.tessera_pub_key,
      wallet_address: patch.wallet_pub_key?.map(walletAddress),
    });
  });
  return subjectOut(row);
}

export async function removeSubject(
  ctx: Pick<Ctx, "caches" | "db">,
  p: Principal,
  id: string,
): Promise<void> {
  subjects.requireAdmin(p); // before refusing Self: a caller who administers nothing hears that first
  refuseSelf(id, "deleted");
  await subjects.remove(ctx, p, id);
}
