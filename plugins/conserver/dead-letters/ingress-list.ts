import type { Redis } from "ioredis";

/** Where the link runtime puts the uuids of vCons whose chain failed (the conserver's convention). */
export function ingressDlqKey(ingressList: string): string {
  return `DLQ:${ingressList}`;
}

// One uuid out of the DLQ and onto the ingress list in one step: never in neither, never in both.
const MOVE_ONE = `if redis.call('LREM', KEYS[1], 1, ARGV[1]) > 0 then redis.call('RPUSH', KEYS[2], ARGV[1]) return 1 end return 0`;

/** The vCon uuids dead-lettered from an ingress list, oldest first. */
export async function ingressDlqList(redis: Redis, ingressList: string, limit = 100): Promise<string[]> {
  return redis.lrange(ingressDlqKey(ingressList), 0, limit - 1);
}

/** How many vCons are dead-lettered from an ingress list. */
export function ingressDlqSize(redis: Redis, ingressList: string): Promise<number> {
  return redis.llen(ingressDlqKey(ingressList));
}

/**
 * Pushes dead-lettered vCons back on their ingress list (at the end, as producers do), oldest
 * first: the given uuids, or up to `limit` when none are given. Returns the uuids moved. Their
 * `vcon:<uuid>` keys are still there (kept a week); links record nothing twice on a re-run.
 */
export async function ingressDlqRetry(
  redis: Redis,
  ingressList: string,
  opts: { uuids?: string[]; limit?: number } = {},
): Promise<string[]> {
  const dlq = ingressDlqKey(ingressList);
  const moved: string[] = [];
  if (opts.uuids?.length) {
    for (const uuid of opts.uuids)
      if ((await redis.eval(MOVE_ONE, 2, dlq, ingressList, uuid)) === 1) moved.push(uuid);
    return moved;
  }
  for (let i = 0; i < (opts.limit ?? 1000); i++) {
    const uuid = await redis.lmove(dlq, ingressList, "LEFT", "RIGHT");
    if (uuid === null) break;
    moved.push(uuid);
  }
  return moved;
}
