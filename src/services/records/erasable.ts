import { randomBytes } from "node:crypto";
import type { Ctx } from "../../context.js";
import { badRequest } from "../../errors/api-error.js";
import { toBase64 } from "../../formats/crypto/bytes.js";
import { LIFECYCLE_ATTRIBUTES } from "../../formats/lifecycle/vocabulary.js";
import { COMMITMENT_KEY, commit, commitmentOf, SALT_BYTES } from "../../formats/record/erasable.js";
import type { ErasableValue } from "../../store/records/erasable-values.js";

/** Names an erasable attribute may not have: the template's (statements are made of them) and DataTrails' own. */
const NEVER_ERASABLE = new Set([
  "arc_display_type",
  "payload",
  "payload_hash_alg",
  "payload_preimage_content_type",
  "payload_location",
  "subject",
  "timestamp_declared",
  "vcon_operation",
  "vcon_draft_version",
  "scitt_draft_version",
]);

/**
 * Lifecycle attributes the derivations decide by, and the service's own records write as lists
 * or identities: committed, a grant would grant no purpose and a revocation revoke every one
 * (consent, §2), and every erasure would be refused for writing a list as an erasable value (§4).
 */
const DECIDING = new Set<string>([
  LIFECYCLE_ATTRIBUTES.purpose,
  LIFECYCLE_ATTRIBUTES.erasedRecords,
  LIFECYCLE_ATTRIBUTES.erasedAttributes,
  LIFECYCLE_ATTRIBUTES.verifiedOperation,
  LIFECYCLE_ATTRIBUTES.verifiedGrant,
  LIFECYCLE_ATTRIBUTES.acknowledgedRevocation,
  LIFECYCLE_ATTRIBUTES.acknowledgingProcessorId,
  LIFECYCLE_ATTRIBUTES.breachId,
]);

const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Checks names asked to be erasable (a policy's, or an event's own); returns them. */
export function checkErasableNames(names: readonly string[], where: string): string[] {
  for (const n of names) {
    if (!NAME.test(n)) throw badRequest(`${where}: ${JSON.stringify(n)} is not an attribute name`);
    if (n.startsWith("arc_") || n.startsWith("jit_") || NEVER_ERASABLE.has(n))
      throw badRequest(`${where}: ${n} cannot be erasable (a template or reserved attribute)`);
    if (DECIDING.has(n))
      throw badRequest(`${where}: ${n} cannot be erasable (the consent and erasure records are read by it)`);
  }
  return [...new Set(names)];
}

const NONE: ReadonlySet<string> = new Set();

/** The names erasable in a record: the tenancy's policy and the record's own (checked); no new set for none. */
function erasableNames(policy: readonly string[], requested: readonly string[]): ReadonlySet<string> {
  if (policy.length === 0 && requested.length === 0) return NONE;
  return new Set([...policy, ...checkErasableNames(requested, "erasable_attributes")]);
}

/** The maps with erasable values committed, and the values and salts to keep beside them. */
export interface CommittedAttributes {
  eventAttributes: Record<string, unknown>;
  assetAttributes: Record<string, unknown>;
  values: readonly ErasableValue[];
}

/** What a record without erasable names keeps beside it: one shared empty list, not one per event. */
const NO_VALUES: readonly ErasableValue[] = Object.freeze([]);

type MapName = "event_attributes" | "asset_attributes" | "attributes";

/** The commitment's form is the service's to make: a client sending one would claim a value it cannot show. */
function refuseCommitment(where: MapName, name: string, value: unknown): void {
  if (commitmentOf(value) !== undefined)
    throw badRequest(
      `${where}.${name} has the form of an erasable attribute's commitment (${COMMITMENT_KEY}), which only the service makes`,
    );
}

function commitMap(
  where: MapName,
  attrs: Record<string, unknown>,
  names: ReadonlySet<string>,
  values: ErasableValue[],
): Record<string, unknown> {
  if (names.size === 0) {
    // Nearly every write: nothing to commit, so no entries array per map (ingest's allocation).
    for (const name in attrs) if (Object.hasOwn(attrs, name)) refuseCommitment(where, name, attrs[name]);
    return attrs;
  }
  let out: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(attrs)) {
    refuseCommitment(where, name, value);
    // A null value is an absent one: nothing to keep.
    if (!names.has(name) || value === null) continue;
    if (typeof value !== "string") throw badRequest(`${where}.${name} is erasable, so it must be text`);
    const salt = new Uint8Array(randomBytes(SALT_BYTES));
    const c = commit(value, salt);
    values.push({ commitment: c[COMMITMENT_KEY], value, salt: toBase64(salt) });
    out ??= { ...attrs };
    out[name] = c;
  }
  return out ?? attrs;
}

/**
 * The attribute names the tenancy makes erasable: answered at once (no promise) when its policy is
 * cached, as it is for nearly every event, since an await per ingested event is a turn of the
 * microtask queue on the hot path.
 */
export function erasurePolicy(
  ctx: Pick<Ctx, "db" | "caches">,
  tenantId: string,
): readonly string[] | Promise<readonly string[]> {
  return (
    ctx.caches.erasurePolicies.peek(ctx.db, tenantId) ?? ctx.caches.erasurePolicies.get(ctx.db, tenantId)
  );
}

/**
 * An event's attributes with each erasable one (the tenancy's `policy`, and the event's own
 * `erasable_attributes`) committed by a salted hash, and the values and salts to store with the
 * record. Without any erasable name the maps are returned as they are: records of a tenancy that
 * uses no erasure are made exactly as before, leaf for leaf.
 */
export function commitErasable(
  policy: readonly string[],
  eventAttributes: Record<string, unknown>,
  assetAttributes: Record<string, unknown>,
  requested: readonly string[] = [],
): CommittedAttributes {
  const names = erasableNames(policy, requested);
  const values: ErasableValue[] = [];
  return {
    eventAttributes: commitMap("event_attributes", eventAttributes, names, values),
    assetAttributes: commitMap("asset_attributes", assetAttributes, names, values),
    values: values.length ? values : NO_VALUES,
  };
}

/**
 * One attribute map (an asset's creation attributes, an asset-free event's attributes) with each
 * erasable one committed, as `commitErasable` does for an event's two maps.
 */
export function commitErasableMap(
  policy: readonly string[],
  where: Exclude<MapName, "event_attributes">,
  attrs: Record<string, unknown>,
  requested: readonly string[] = [],
): { attributes: Record<string, unknown>; values: readonly ErasableValue[] } {
  const names = erasableNames(policy, requested);
  const values: ErasableValue[] = [];
  const attributes = commitMap(where, attrs, names, values);
  return { attributes, values: values.length ? values : NO_VALUES };
}
