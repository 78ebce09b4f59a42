/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes; the last error explains a timeout. */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A record as the API returns it, read again (flushing the workers) until it is committed. */
export function committedRecord<R extends { confirmation_status?: string }>(
  s: {
    api(path: string, init?: { token?: string }): Promise<Response>;
    service: { workers: { flush(): Promise<unknown> } };
  },
  token: string,
  path: string,
  timeoutMs = 30_000,
): Promise<R> {
  return until(async () => {
    await s.service.workers.flush();
    const rec = (await (await s.api(path, { token })).json()) as R;
    const status = rec.confirmation_status;
    return status !== undefined && !["STORED", "PENDING"].includes(status) ? rec : undefined;
  }, timeoutMs);
}
