import { connect, type Socket } from "node:net";
import { CodedError } from "../formats/coded-error.js";

/** Where clamd listens: a unix socket path, or a TCP host and port (default 127.0.0.1:3310). */
export interface ClamdTarget {
  path?: string;
  host?: string;
  port?: number;
}

/** clamd's verdict on one stream. */
export interface ClamdVerdict {
  status: "SCANNED_OK" | "SCANNED_BAD";
  reason: string;
}

export type ClamdErrorCode = "clamd_unreachable" | "clamd_timeout" | "clamd_error" | "clamd_protocol";

/** No verdict was obtained; the blob should stay NOT_SCANNED and be tried again later. */
export class ClamdError extends CodedError<ClamdErrorCode> {
  constructor(
    readonly code: ClamdErrorCode,
    message: string,
  ) {
    super(message);
  }
}

// clamd's StreamMaxLength applies to the sum, not to chunks; 64 KiB keeps each write small.
const CHUNK = 64 * 1024;

/** Reads one clamd answer (`stream: OK`, `stream: <name> FOUND`, `... ERROR`), session prefix allowed. */
export function parseClamdReply(reply: string): ClamdVerdict {
  const text = reply.replace(/[\0\s]+$/, "").replace(/^\d+: /, "");
  if (text === "stream: OK") return { status: "SCANNED_OK", reason: "ClamAV: no threat found" };
  const found = /^stream: (.+) FOUND$/.exec(text);
  if (found) return { status: "SCANNED_BAD", reason: `ClamAV: ${found[1]}` };
  if (text.endsWith("ERROR")) throw new ClamdError("clamd_error", `clamd: ${text}`);
  throw new ClamdError("clamd_protocol", `clamd answered ${JSON.stringify(text.slice(0, 200))}`);
}

/** `zINSTREAM`, then each chunk behind its 4-byte big-endian length, then a zero length. */
function sendStream(socket: Socket, bytes: Uint8Array): void {
  socket.write("zINSTREAM\0");
  for (let at = 0; at < bytes.length; at += CHUNK) {
    const chunk = bytes.subarray(at, at + CHUNK);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(chunk.length);
    socket.write(length);
    socket.write(chunk);
  }
  socket.write(Buffer.alloc(4));
}

function open(target: ClamdTarget): Socket {
  return target.path !== undefined
    ? connect({ path: target.path })
    : connect({ host: target.host ?? "127.0.0.1", port: target.port ?? 3310 });
}

const MAX_REPLY_BYTES = 64 * 1024;

/** Sends the stream and collects clamd's NUL-terminated answer, within `timeoutMs`. */
function exchange(socket: Socket, bytes: Uint8Array, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let connected = false;
    const reply = () => Buffer.concat(received).toString("utf8");
    const finish = (error?: ClamdError) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(reply());
    };
    const timer = setTimeout(
      () => finish(new ClamdError("clamd_timeout", `clamd did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on("connect", () => {
      connected = true;
      sendStream(socket, bytes);
    });
    let size = 0;
    socket.on("data", (data: Buffer) => {
      received.push(data);
      size += data.length;
      if (data.includes(0)) finish();
      // clamd answers a line ("stream: OK"); a peer that keeps talking is not clamd.
      else if (size > MAX_REPLY_BYTES)
        finish(new ClamdError("clamd_protocol", `clamd's answer passed ${MAX_REPLY_BYTES} bytes`));
    });
    // clamd may answer and hang up while we still write (size limit): its answer wins.
    socket.on("error", (error) => {
      if (received.length > 0) return finish();
      const code = connected ? "clamd_protocol" : "clamd_unreachable";
      finish(
        new ClamdError(code, `clamd ${connected ? "connection failed" : "unreachable"}: ${error.message}`),
      );
    });
    socket.on("close", () => {
      if (received.length > 0) return finish();
      finish(new ClamdError("clamd_protocol", "clamd closed the connection without an answer"));
    });
  });
}

/**
 * Scans bytes with ClamAV's clamd over the INSTREAM protocol. Resolves with the verdict;
 * rejects with a ClamdError when clamd cannot be reached, does not answer within
 * `timeoutMs`, reports an error (such as its size limit), or answers nonsense.
 */
export async function clamdScan(
  bytes: Uint8Array,
  target: ClamdTarget,
  timeoutMs: number,
): Promise<ClamdVerdict> {
  return parseClamdReply(await exchange(open(target), bytes, timeoutMs));
}
