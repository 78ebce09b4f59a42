import { call } from "./http.js";
import { perSecond } from "./stats.js";

/**
 * How many of a list's records are still STORED (not yet in the log), from the count header.
 * Past the server's result limit (10,000 by default) the list answers 206 with an approximate
 * total (10,001 in a drain of 19,143 STORED, 4 s on one value while the workers committed): still
 * a backlog, which the drain used to take for "unknown", but a floor, not a count.
 */
async function storedCount(
  origin: string,
  token: string,
  listPath: string,
): Promise<{ n: number; floor: boolean } | undefined> {
  const sep = listPath.includes("?") ? "&" : "?";
  const a = await call(origin, "GET", `${listPath}${sep}confirmation_status=STORED&page_size=1`, {
    token,
    headers: { "x-request-total-count": "true" },
  });
  const n = Number(a.headers["x-total-count"]);
  if ((a.status !== 200 && a.status !== 206) || !Number.isFinite(n)) return undefined;
  return { n, floor: a.status === 206 };
}

/** What waiting for the committer to catch up showed. */
export interface Drain {
  initial: number;
  /** The initial count was past the list's result limit: the backlog was at least `initial`. */
  floor?: boolean;
  remaining: number;
  ms: number;
}

/** How often the drain asks for the backlog. */
const POLL_MS = 250;

/**
 * Waits until the committer has taken every STORED record of the list into the log, or
 * `timeoutMs` passes; the next phase then starts clean. There is no shorter "no progress" cut:
 * the count falls in steps (batches of up to 2,000 records; past the result limit it reads the
 * same capped total for as long as the backlog exceeds it, 26 s for 74,277 records taken by two
 * workers), and a step on a loaded machine (issue 59: load 15–22, a service getting ~0.05 cores)
 * can take longer than the 5 s the drain used to allow, which then reported records "still
 * STORED" that were being committed. An empty first page is always counted exactly, so a drain
 * ends at 0; only a committer that stopped waits out the timeout.
 */
export async function drainBacklog(
  origin: string,
  token: string,
  listPath: string,
  timeoutMs: number,
): Promise<Drain | undefined> {
  const start = Date.now();
  const first = await storedCount(origin, token, listPath).catch(() => undefined);
  if (first === undefined) return undefined;
  const initial = first.n;
  let remaining = initial;
  let lastProgress = start;
  while (remaining > 0 && Date.now() - start < timeoutMs) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    // A poll that fails (a 503 or a reset from a loaded balancer) says nothing of the backlog:
    // the wait goes on, where it used to end and report the last count as left STORED.
    const n = (await storedCount(origin, token, listPath).catch(() => undefined))?.n;
    if (n === undefined) continue;
    if (n < remaining) lastProgress = Date.now();
    remaining = n;
  }
  const ms = (remaining === 0 ? lastProgress : Date.now()) - start;
  return { initial, ...(first.floor ? { floor: true } : {}), remaining, ms };
}

/**
 * A drain's row: the committer's catch-up rate, or why there is none, and what was left. Every
 * drain gets one, an empty backlog and an unanswered count included (issue 59: a drain that left
 * no row could not be told from one that never ran).
 */
export function drainRow(dr: Drain | undefined): { value: number | null; note: string } {
  if (!dr) return { value: null, note: "the list's total count was not answered: backlog unknown" };
  const done = dr.initial - dr.remaining;
  const left = dr.remaining
    ? `, ${dr.remaining} still STORED when the wait ended (${Math.round(dr.ms / 1000)} s)`
    : "";
  // A backlog of a few events says nothing about the committer's rate.
  if (dr.initial < 100)
    return {
      value: null,
      note: `${dr.initial} STORED after the phase${left}: too few to rate the committer`,
    };
  if (done === 0)
    return {
      value: null,
      note: `${dr.initial} STORED, none committed in ${dr.ms} ms: committer not running?`,
    };
  if (dr.floor)
    return { value: perSecond(done, dr.ms), note: `over ${dr.initial} events (rate a floor)${left}` };
  return { value: perSecond(done, dr.ms), note: `${dr.initial} events${left}` };
}
