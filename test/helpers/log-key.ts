import { until } from "./poll.js";

/**
 * A log's published key (`…/tlog/key`, `…/key-ml-dsa-44`), once it has one: the key is named by
 * the log's origin, which its first checkpoint records, so until a sealer's tick has written that
 * (after a flush, later on a loaded machine) the route answers 404.
 */
export function publishedKey(get: () => Promise<Response>, timeoutMs = 60_000): Promise<string> {
  return until(async () => {
    const res = await get();
    return res.status === 200 ? (await res.text()).trim() : undefined;
  }, timeoutMs);
}
