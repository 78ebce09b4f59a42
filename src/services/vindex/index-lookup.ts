import type { Ctx, Principal } from "../../context.js";
import { ApiError, badRequest, notFound } from "../../errors/api-error.js";
import type { IndexLookup } from "../../formats/vindex/lookup-format.js";
import { canonicalKey } from "../../formats/vindex/map.js";
import { recordsAtEntries } from "../../store/ledger/vindex.js";
import { LookupUnavailable, lookUp } from "../../vindex/lookup.js";
import { viewFor } from "../access/caller-view.js";
import { readableRecordName } from "../access/readable-records.js";

/** What a caller is told when it may not have the answer: the same as for a key with no records. */
const NOTHING = () => notFound("index entry");

/**
 * A lookup in the caller's tenancy's index (docs/complete-trails.md, "Who may look up what").
 * A caller granted the tenancy whole gets any answer, absence included. Any other caller gets
 * an answer only when the key has entries and it may read every record they are: otherwise 404,
 * the same whether the key is absent or holds a record it may not read, so that no lookup tells
 * it what it may not read (that a guessed phone number has records, or how many).
 */
export async function lookUpKey(
  ctx: Pick<Ctx, "db" | "caches" | "config" | "vindex">,
  caller: Principal,
  rawKey: string,
): Promise<IndexLookup> {
  const key = canonicalKey(rawKey);
  if (!key)
    throw badRequest(
      "key must be vcon://<uuid>, assets/<uuid>, issuer:<issuer> or subject:<subject> (docs/complete-trails.md)",
    );
  const tenantId = caller.tenantId;
  const whole = (await viewFor(ctx, caller)).wholeIn(tenantId);
  let answer: IndexLookup;
  try {
    answer = await lookUp(ctx.db, tenantId, key, ctx.vindex.states, ctx.vindex.positions);
  } catch (err) {
    if (err instanceof LookupUnavailable) throw new ApiError("unavailable", err.message);
    throw err;
  }
  if (whole) return answer;
  if (answer.indices.length === 0) throw NOTHING();
  const records = await recordsAtEntries(ctx.db, tenantId, answer.indices);
  for (const id of records)
    if (id === undefined || (await readableRecordName(ctx, caller, id)) === undefined) throw NOTHING();
  return answer;
}
