// Container healthcheck (docker-compose.yml). `api`: the service answers /readyz (its database
// answers too). `worker`: the worker has no HTTP port, so it checks what a worker needs to make
// progress: its database answers a query, and Redis a PING when REDIS_URL is set.
import net from "node:net";

const what = process.argv[2];
const fail = (message) => {
  process.stderr.write(`unhealthy: ${message}\n`);
  process.exit(1);
};
const timer = setTimeout(() => fail("no answer within 4 s"), 4000);

async function redisPing(url) {
  const { hostname, port } = new URL(url);
  await new Promise((resolve, reject) => {
    const socket = net.connect(Number(port || 6379), hostname, () => socket.write("PING\r\n"));
    socket.once("data", (d) => {
      socket.destroy();
      d.toString().startsWith("+PONG") ? resolve() : reject(new Error(`redis answered ${d}`));
    });
    socket.once("error", reject);
  });
}

try {
  if (what === "api") {
    const res = await fetch(`http://127.0.0.1:${process.env.PORT ?? "8080"}/readyz`);
    if (!res.ok) fail(`/readyz answered ${res.status}`);
  } else if (what === "worker") {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query("select 1");
    await client.end();
    if (process.env.REDIS_URL) await redisPing(process.env.REDIS_URL);
  } else fail("usage: node scripts/healthcheck.mjs api|worker");
  clearTimeout(timer);
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
