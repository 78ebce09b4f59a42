import { randomBytes } from "node:crypto";
import { TenantIndex, positionKey } from "./dist/src/vindex/tenant-index.js";
const ix = new TenantIndex(); let li = 0; const b0 = [];
for (let i = 0; i < 20000; i++) b0.push({ position: randomBytes(32), log_index: li++, salt: randomBytes(32) });
ix.file(b0, li); ix.root();
const pre = []; for (let r = 0; r < 20; r++) { const es = []; for (let i = 0; i < 500; i++) { const a = randomBytes(32), v = randomBytes(32), s = randomBytes(32); const ai = positionKey(a), vi = positionKey(v); es.push({ position: a, log_index: li, salt: s, id: ai }); li++; es.push({ position: a, log_index: li, salt: s, id: ai }); es.push({ position: v, log_index: li, salt: s, id: vi }); li++; } pre.push([es, li]); }
let f = 0n, ro = 0n;
for (const [es, upTo] of pre) { let t = process.cpuUsage(); ix.file(es, upTo); let u = process.cpuUsage(t); f += BigInt(u.user + u.system) * 1000n; t = process.cpuUsage(); ix.root(); u = process.cpuUsage(t); ro += BigInt(u.user + u.system) * 1000n; }
console.log("file µs/vCon", (Number(f) / 1000 / 10000).toFixed(1), "root µs/vCon", (Number(ro) / 1000 / 10000).toFixed(1));
