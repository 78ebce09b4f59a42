import { setFlagsFromString } from "node:v8";

/**
 * V8's allocation-site pretenuring is switched off for every process the CLI starts, before any
 * other module runs. At start-up (migrations, bootstrap, the first requests) a few allocation sites
 * see all their objects outlive a scavenge, and V8 then allocates everything those sites make
 * straight into the old generation. Whether a site on the request path is among them is a lottery
 * of timing. When it is, each dead pretenured object keeps the young objects it points to alive
 * through every scavenge until the next mark-compact. Nearly all of a request's objects are then
 * promoted: 6.7 MB a scavenge against 0.01 under `pair`'s reads, and a mark-compact every ~3 s.
 * Release 0.7.0 draws the same lottery. With the young generation at 64 MiB
 * (`--max-semi-space-size`), objects that do live long are promoted by age anyway
 * (docs/performance.md, "V8's pretenuring is a start-up lottery").
 *
 * Set here rather than on the command line so that every way of starting the service (`npm start`,
 * the bin, the Dockerfile, `node dist/src/cli/main.js`) has it. V8 reads the flag when it digests
 * pretenuring feedback, at each collection, so setting it before the first one is in time.
 */
setFlagsFromString("--no-allocation-site-pretenuring");
