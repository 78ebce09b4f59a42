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
