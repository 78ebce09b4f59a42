import type { Outcome } from "../batching/coalescer.js";
import type { Principal } from "../context.js";
import { errorStatus } from "../errors/api-error.js";
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
  // Each item is a request to the rate limit: the gate counted the first, the others take what
  // the limit admits now, and those past it are answered 429 without being run (they may be
  // sent again, as a refused request may).
  const admitted = 1 + ((await d.limiter?.takeUpTo(p.tenantId, items.length - 1)) ?? items.length - 1);
  const settled = await run(items.slice(0, admitted));
  const limited = errorStatus.rate_limited;
  const over: ItemError = {
    status: limited.http,
    code: limited.grpc,
    message: "request rate limit exceeded: this item was not run",
    details: [],
  };
  return {
    responses: [
      ...settled.map((s) => {
        if ("row" in s) return s.row;
        const e = toApiError(s.error);
        // As the error handler does for a whole request: a fault of ours is logged, never shown.
        if (e.kind === "internal") d.ctx.log.error({ err: s.error }, `${what} item failed`);
        const status = errorStatus[e.kind];
        return { error: { status: status.http, code: status.grpc, message: e.message, details: e.details } };
      }),
      ...items.slice(admitted).map(() => ({ error: over })),
    ],
  };
}

interface ItemError {
  status: number;
  code: number;
  message: string;
  details: unknown[];
}
