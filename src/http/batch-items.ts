import type { Outcome } from "../batching/coalescer.js";
import type { Principal } from "../context.js";
import { errorStatus } from "../core/api/api-error.js";
import type { HttpDeps } from "./deps.js";
import { toApiError } from "./errors.js";

/**
 * The answer of one of our batch extensions (`assets:batchWithEvents`,
 * `assets/-/events:batch`): `run` handles each item as its own request would be handled, and
 * each is answered in order with its result, or the status and `{code, message, details}` its
 * own request would have had.
 */
export async function answerItems<I, R>(
  d: HttpDeps,
  p: Principal,
  what: string,
  items: I[],
  run: (items: I[]) => Promise<Array<Outcome<R>>>,
): Promise<{ responses: Array<R | { error: ItemError }> }> {
  // Admitted as one request (the gate counted it); its other items count as requests too.
  await d.limiter?.charge(p.tenantId, items.length - 1);
  const settled = await run(items);
  return {
    responses: settled.map((s) => {
      if ("row" in s) return s.row;
      const e = toApiError(s.error);
      // As the error handler does for a whole request: a fault of ours is logged, never shown.
      if (e.kind === "internal") d.ctx.log.error({ err: s.error }, `${what} item failed`);
      const status = errorStatus[e.kind];
      return { error: { status: status.http, code: status.grpc, message: e.message, details: e.details } };
    }),
  };
}

interface ItemError {
  status: number;
  code: number;
  message: string;
  details: unknown[];
}
