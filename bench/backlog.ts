import { call } from "./http.js";

/** How many of a list's records are still STORED (not yet in the log), from the count header. */
async function storedCount(origin: string, token: string, listPath: string): Promise<number | undefined> {
  const sep = listPath.includes("?") ? "&" : "?";
  const a = await call(origin, "GET", `${listPath}${sep}confirmation_status=STORED&page_size=1`, {
    token,
    headers: { "x-request-total-count": "true" },
  });
  const n = Number(a.headers["x-total-count"]);
  return a.status === 200 && Number.isFinite(n) ? n : undefined;
}

/** What waiting for the committer to catch up showed. */
export interface Drain {
  initial: number;
  remaining: number;
  ms: number;
}

/**
 * Waits until the committer has taken every STORED record of the list into the log, or it
 * stops making progress for `stallMs`, or `timeoutMs` passes; the next phase then starts clean.
 */
export async function drainBacklog(
  origin: string,
  token: string,
  listPath: string,
  timeoutMs: number,
  stallMs = 5000,
): Promise<Drain | undefined> {
  const start = Date.now();
  const initial = await storedCount(origin, token, listPath);
  if (initial === undefined) return undefined;
  let remaining = initial;
  let lastProgress = start;
  while (remaining > 0 && Date.now() - start < timeoutMs && Date.now() - lastProgress < stallMs) {
    await new Promise((r) => setTimeout(r, 250));
    const n = await storedCount(origin, token, listPath);
    if (n === undefined) break;
    if (n < remaining) lastProgress = Date.now();
    remaining = n;
  }
  return { initial, remaining, ms: (remaining === 0 ? lastProgress : Date.now()) - start };
}
