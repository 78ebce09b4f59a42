import { createServer, type Server, type Socket } from "node:net";

/** How the fake daemon behaves. */
export interface FakeClamdOptions {
  /** Signature name reported when the stream contains `marker`. */
  marker?: string;
  /** Answer with clamd's size-limit error once more than this many bytes arrived. */
  maxBytes?: number;
  /** Never answer (to test timeouts). */
  silent?: boolean;
  /** Answer this text instead of a verdict. */
  reply?: string;
}

/** What one connection sent: the command and the reassembled stream. */
interface Received {
  command: string;
  stream: Buffer;
  chunks: number;
}

/** Parses the INSTREAM framing as clamd does; returns undefined until the zero-length chunk arrives. */
function parse(buffer: Buffer): Received | undefined {
  const nul = buffer.indexOf(0);
  if (nul < 0) return undefined;
  const parts: Buffer[] = [];
  for (let at = nul + 1; at + 4 <= buffer.length; ) {
    const length = buffer.readUInt32BE(at);
    if (length === 0)
      return {
        command: buffer.subarray(0, nul).toString(),
        stream: Buffer.concat(parts),
        chunks: parts.length,
      };
    if (at + 4 + length > buffer.length) return undefined;
    parts.push(buffer.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return undefined;
}

function serve(socket: Socket, options: FakeClamdOptions, log: Received[]): void {
  let buffer = Buffer.alloc(0);
  socket.on("data", (data) => {
    buffer = Buffer.concat([buffer, data]);
    if (options.maxBytes !== undefined && buffer.length > options.maxBytes + 64) {
      socket.end("INSTREAM size limit exceeded. ERROR\0");
      return;
    }
    const received = parse(buffer);
    if (received === undefined || options.silent) return;
    log.push(received);
    const found = options.marker !== undefined && received.stream.includes(options.marker);
    socket.end(options.reply ?? (found ? "stream: Test.Marker FOUND\0" : "stream: OK\0"));
  });
  socket.on("error", () => {});
}

/** Starts a fake clamd on `listen` (a port of 0, or a unix socket path). */
export async function startFakeClamd(listen: number | string, options: FakeClamdOptions = {}) {
  const log: Received[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serve(socket, options, log);
  });
  await new Promise<void>((resolve) => server.listen(listen, resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return { port, log, close };
}
