import { randomBytes } from "node:crypto";

/** The etcd the tests share (`.ci/run` starts one on loopback): TEST_ETCD_URL, else the default client port. */
export const ETCD_URL = process.env.TEST_ETCD_URL ?? "http://127.0.0.1:2379";

/**
 * Whether etcd answers: undefined when it does, else why not. In CI a missing etcd fails the
 * test that needs it (the caller throws), never a silent skip.
 */
export async function etcdMissing(): Promise<string | undefined> {
  try {
    const res = await fetch(`${ETCD_URL}/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { health?: string };
    return body.health === "true" ? undefined : `etcd at ${ETCD_URL} is not healthy`;
  } catch (err) {
    return `etcd is not reachable at ${ETCD_URL} (${(err as Error).message})`;
  }
}

/** A key prefix of the test's own, so tests sharing one etcd never see each other's heads. */
export const etcdPrefix = (label: string) => `/archivist-test/${label}-${randomBytes(6).toString("hex")}/`;
