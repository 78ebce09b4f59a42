import type { Command } from "./command.js";

/**
 * A command as the program lists it, before its module is loaded. The modules reach far (serve
 * loads the whole server, verify the verifier): each is imported only when its command runs or its
 * help is asked for, so `archivist --help` or `archivist verify bundle …` loads nothing else.
 */
export interface CommandEntry {
  summary: string;
  /**
   * What the listing shows after the name: commander's term for the declared command (`[options]`
   * when it declares options, then its arguments); none for a command without either. Kept here
   * so that the listing needs no module (test/unit/cli/command-table.test.ts holds it to them).
   */
  synopsis?: string;
  load(): Promise<Command>;
}

/** Every command of `archivist`, in the order the listing shows them. */
export const commands: Record<string, CommandEntry> = {
  serve: {
    summary: "serve the API and run the workers (--no-workers: API only)",
    synopsis: "[options]",
    load: async () => (await import("./serve.js")).serveCommand,
  },
  worker: {
    summary: "run only the commit, seal, anchor, witnessing and scan workers (PostgreSQL scale-out)",
    synopsis: "[options]",
    load: async () => (await import("./serve.js")).workerCommand,
  },
  scan: {
    summary: "scan every blob not yet scanned, now (the scanner otherwise runs daily)",
    synopsis: "[options]",
    load: async () => (await import("./scan.js")).scanCommand,
  },
  verify: {
    summary: "verify a statement, a record, a log, an evidence bundle, a public document or a vCon",
    synopsis: "[options] [file]",
    load: async () => (await import("./verify-public.js")).verifyPublicCommand,
  },
  export: {
    summary: "write a vCon's or an asset's evidence bundle: records, receipts, seals, proofs, keys",
    synopsis: "[options] <target>",
    load: async () => (await import("./export.js")).exportCommand,
  },
  keys: {
    summary: "the service's keys: list, rotate, accept a restore (docs/keys.md)",
    load: async () => (await import("./keys.js")).keysCommand,
  },
  log: {
    summary:
      "a tenancy's log periods: close, list, archive to object storage, drop from the database (docs/scaling.md)",
    load: async () => (await import("./log.js")).logCommand,
  },
  consent: {
    summary:
      "a vCon's consent per purpose (granted, revoked, never asked), with the records and receipts that prove it",
    synopsis: "[options] <vcon>",
    load: async () => (await import("./consent.js")).consentCommand,
  },
  processors: {
    summary:
      "processors told of consent revocations: register, list, remove, and the notices not acknowledged",
    load: async () => (await import("./processors.js")).processorsCommand,
  },
  bench: {
    summary:
      "run the benchmarks (all scenarios, or those named; --quick; `archivist bench --help` lists them)",
    load: async () => (await import("./bench.js")).benchCommand,
  },
  conserver: {
    summary: "vCon conserver links: run --config conserver.example.yml | dlq list | dlq retry",
    load: async () => (await import("./conserver.js")).conserverCommand,
  },
  mirror: {
    summary: "copy a log's C2SP tiles, checkpoint and key to a directory: mirror <log url> <dir>",
    load: async () => (await import("./mirror.js")).mirrorCommand,
  },
  index: {
    summary:
      "a log's verifiable index: audit its output log from public material, or rebuild it from the records (docs/complete-trails.md)",
    load: async () => (await import("./index-command.js")).indexCommand,
  },
  partition: {
    // The tables are store/archive/partitioning.ts's PARTITIONED_TABLES, written out: importing
    // them would load the store (the table's test checks the list).
    summary:
      "hash-partition the record and log tables (assets, asset_events, events, blobs, log_entries, mmr_nodes, tlog_nodes) by tenancy, in place",
    synopsis: "[options]",
    load: async () => (await import("./partition.js")).partitionCommand,
  },
  witness: {
    summary: "run a C2SP tlog-witness (own key and state in --dir) for the logs given by their vkeys",
    load: async () => (await import("./witness.js")).witnessCommand,
  },
};
