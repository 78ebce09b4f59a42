import { connect } from "node:net";

/** What came back: an answer, nothing before the server closed, or nothing before the limit. */
export type RawOutcome =
  | { kind: "answer"; status: number; headers: Record<string, string>; body: Buffer }
  | { kind: "closed" }
  | { kind: "hang" };

export interface RawRequest {
  method: string;
  /** The request target as bytes on the wire: raw bytes (invalid UTF-8, NUL) are sent as they are. */
  target: Buffer | string;
  /** Header lines as sent, in order; repeated names are sent repeated. */
  headers?: Array<[string, string | Buffer]>;
  body?: Buffer;
}

const CRLF = Buffer.from("\r\n");

/** Whether `buf` holds a whole chunked body (its last chunk and trailer end). */
function chunkedBody(buf: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf(CRLF, at);
    if (eol < 0) return undefined;
    const size = Number.parseInt(buf.subarray(at, eol).toString("latin1").split(";")[0] ?? "", 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    if (buf.length < eol + 2 + size + 2) return undefined;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** The answer in `buf`, once whole; `undefined` while more is to come. */
function parse(buf: Buffer, head: boolean, closed: boolean): RawOutcome | undefined {
  const end = buf.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const lines = buf.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number((lines[0] ?? "").split(" ")[1]);
  // An interim answer (100 Continue) is followed by the real one.
  if (status >= 100 && status < 200) return parse(buf.subarray(end + 4), head, closed);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(":");
    const name = line.slice(0, i).trim().toLowerCase();
    headers[name] =
      headers[name] === undefined
        ? line.slice(i + 1).trim()
        : `${headers[name]}, ${line.slice(i + 1).trim()}`;
  }
  const rest = buf.subarray(end + 4);
  if (head || status === 204 || status === 304)
    return { kind: "answer", status, headers, body: Buffer.alloc(0) };
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    const body = chunkedBody(rest);
    return body ? { kind: "answer", status, headers, body } : undefined;
  }
  const length = headers["content-length"];
  if (length !== undefined)
    return rest.length >= Number(length)
      ? { kind: "answer", status, headers, body: rest.subarray(0, Number(length)) }
      : undefined;
  return closed ? { kind: "answer", status, headers, body: rest } : undefined;
}

/**
 * One HTTP/1.1 request over its own connection, byte for byte as given (fetch would normalise
 * the target, refuse some headers and always finish its body). Resolves with the first whole
 * answer, "closed" when the server hung up without one, or "hang" when nothing whole came
 * within `limitMs` (a limit for a hang, not a timing).
 */
export function rawRequest(url: string, r: RawRequest, limitMs: number): Promise<RawOutcome> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let buf = Buffer.alloc(0);
    let settled = false;
    const settle = (o: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => settle({ kind: "hang" }), limitMs);
    const head = r.method === "HEAD";
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const o = parse(buf, head, false);
      if (o) settle(o);
    });
    socket.on("close", () => settle(parse(buf, head, true) ?? { kind: "closed" }));
    socket.on("error", () => undefined);
    socket.on("connect", () => {
      const lines: Buffer[] = [
        Buffer.from(`${r.method} `),
        Buffer.from(r.target),
        Buffer.from(" HTTP/1.1\r\n"),
      ];
      const names = new Set((r.headers ?? []).map(([n]) => n.toLowerCase()));
      if (!names.has("host")) lines.push(Buffer.from(`host: ${hostname}:${port}\r\n`));
      if (!names.has("connection")) lines.push(Buffer.from("connection: close\r\n"));
      for (const [n, v] of r.headers ?? []) lines.push(Buffer.from(`${n}: `), Buffer.from(v), CRLF);
      lines.push(CRLF);
      if (r.body) lines.push(r.body);
      // Never half-closed: the answer's `connection: close` ends the exchange, as a browser's would.
      socket.write(Buffer.concat(lines));
    });
  });
}
