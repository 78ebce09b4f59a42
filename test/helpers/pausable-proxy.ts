import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy on loopback to `target` that a test can pause: paused, it forwards no byte either
 * way and connects nothing new, as a database host that stopped answering (the shared
 * PostgreSQL server itself is never stopped); resumed, it forwards what waited.
 */
export interface PausableProxy {
  port: number;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function pausableProxy(target: { host: string; port: number }): Promise<PausableProxy> {
  let paused = false;
  const sockets = new Set<Socket>();
  const waiting: Array<() => void> = [];
  const server: Server = createServer((client) => {
    const open = () => {
      const upstream = connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
        s.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
      if (paused) {
        client.pause();
        upstream.pause();
      }
    };
    if (paused) waiting.push(open);
    else open();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as { port: number }).port,
    pause() {
      paused = true;
      for (const s of sockets) s.pause();
    },
    resume() {
      paused = false;
      for (const s of sockets) s.resume();
      for (const open of waiting.splice(0)) open();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
