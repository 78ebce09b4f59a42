/**
 * The value kept under `key`, else the one `read` finds, then kept: for what never changes once it
 * exists (an event's access facts, a record's log entry), so a miss is read again, never kept.
 * Past `most` kept values the map starts over: cheaper than tracking age, and rarely reached.
 */
export async function readThrough<V>(
  kept: Map<string, V>,
  key: string,
  most: number,
  read: () => Promise<V | undefined>,
): Promise<V | undefined> {
  const known = kept.get(key);
  if (known) return known;
  const value = await read();
  if (!value) return undefined;
  if (kept.size >= most) kept.clear();
  kept.set(key, value);
  return value;
}
