// src/net: reading another party's answer within bounds (size, time) and bearer tokens, for the
// client, the look-ups, the services and the workers. Web-standard fetch only; it imports the
// formats' bytes and nothing else of ours.
import { concatBytes } from "../formats/crypto/bytes.js";
import { readWithin } from "./time-limit.js";

/** An answer larger than its reader accepts: refused, its stream cancelled. */
export class BodyTooLarge extends Error {}

/**
 * The body of an answer from another party (a witness, a service, a bucket), read up to `max`
 * bytes: a declared length over it is refused before reading, and a stream that grows past it
 * is cancelled there. Another party's answer must never hold more of our memory than its use
 * needs. Its time is bounded by `signal` (the request's `timeLimit`): each read is raced against
 * it and the stream cancelled when it aborts, whether or not the fetch still follows the signal.
 */
export async function readBounded(
  res: Response,
  max: number,
  what: string,
  signal?: AbortSignal,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(`${what} declared ${declared} bytes; at most ${max} are read`);
  }
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let r: ReadableStreamReadResult<Uint8Array>;
    try {
      r = await readWithin(reader.read(), signal);
    } catch (err) {
      await reader.cancel(err).catch(() => undefined);
      throw err;
    }
    if (r.done) break;
    size += r.value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(`${what} is larger than ${max} bytes`);
    }
    chunks.push(r.value);
  }
  return concatBytes(chunks);
}

/** `readBounded` as UTF-8 text. */
export async function readBoundedText(
  res: Response,
  max: number,
  what: string,
  signal?: AbortSignal,
): Promise<string> {
  return new TextDecoder().decode(await readBounded(res, max, what, signal));
}
