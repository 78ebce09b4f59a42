import { randomUUID } from "node:crypto";
import { Etcd3, type IKeyValue, type Watcher } from "etcd3";
import type { Logger } from "pino";
import type { LogHead, LogHeads, SwapResult } from "./log-heads.js";
import type { SignedLogState } from "./signed-state.js";

/** A call to etcd answers within this, or the signing it guards is refused (never a hang under the log's lock). */
const CALL_MS = 3000;
const TENANT = /^[0-9a-f-]{36}$/;

/** What a head's value holds in etcd: the signed state and the process that wrote it. */
interface Stored {
  state: SignedLogState;
  signer: string;
}

/**
 * The logs' heads in etcd (`<prefix>logs/<tenant>/head`): a swap is one etcd transaction that
 * puts the new head only if the key's modification revision is still the one the signer read
 * (or, for a log's first head, the key does not exist), the compare-and-swap etcd serialises
 * through its Raft log. etcd's own guarantees (a quorum of its members) are what make the head
 * one: a deployment runs three or five members on separate machines (docs/scaling.md).
 */
export class EtcdHeads implements LogHeads {
  readonly signer = randomUUID();
  readonly where: string;
  private readonly client: Etcd3;
  private watcher: Watcher | undefined;

  constructor(
    endpoints: string[],
    private readonly prefix: string,
    private readonly log: Logger,
  ) {
    this.where = `etcd ${endpoints.join(",")} ${prefix}`;
    // The client's own retries (another member, on a recoverable error) stay: a swap retried after
    // its first try was applied finds its own head, which `SharedHead.advance` takes as done.
    this.client = new Etcd3({
      hosts: endpoints,
      dialTimeout: CALL_MS,
      defaultCallOptions: (c) => (c.isStream ? {} : { deadline: Date.now() + CALL_MS }),
    });
  }

  private key(tenantId: string): string {
    if (!TENANT.test(tenantId)) throw new Error(`not a tenancy id: ${tenantId}`);
    return `${this.prefix}logs/${tenantId}/head`;
  }

  private headOf(kv: IKeyValue): LogHead {
    const stored = JSON.parse(kv.value.toString("utf8")) as Stored;
    return { state: stored.state, signer: stored.signer, revision: String(kv.mod_revision) };
  }

  async read(tenantId: string): Promise<LogHead | undefined> {
    const res = await this.client.get(this.key(tenantId)).exec();
    const kv = res.kvs[0];
    return kv ? this.headOf(kv) : undefined;
  }

  async swap(tenantId: string, from: string | undefined, state: SignedLogState): Promise<SwapResult> {
    const key = this.key(tenantId);
    const value = JSON.stringify({ state, signer: this.signer } satisfies Stored);
    const res = await this.client
      .if(key, from === undefined ? "Create" : "Mod", "==", from === undefined ? 0 : from)
      .then(this.client.put(key).value(value))
      .else(this.client.get(key))
      .commit();
    if (res.succeeded) {
      const revision = String(res.header.revision);
      return { ok: true, head: { state, signer: this.signer, revision } };
    }
    const kv = res.responses[0]?.response_range?.kvs?.[0];
    return { ok: false, current: kv ? this.headOf(kv) : undefined };
  }

  async remove(tenantId: string, from: string): Promise<boolean> {
    const key = this.key(tenantId);
    const res = await this.client.if(key, "Mod", "==", from).then(this.client.delete().key(key)).commit();
    return res.succeeded;
  }

  async tenants(): Promise<string[]> {
    const keys = await this.client.getAll().prefix(`${this.prefix}logs/`).keys();
    return keys
      .map((k) => k.slice(`${this.prefix}logs/`.length).split("/")[0] ?? "")
      .filter((t) => TENANT.test(t));
  }

  async watch(onHead: (tenantId: string, head: LogHead) => void): Promise<void> {
    const base = `${this.prefix}logs/`;
    this.watcher = await this.client.watch().prefix(base).create();
    this.watcher.on("put", (kv) => {
      try {
        const tenant = kv.key.toString("utf8").slice(base.length).split("/")[0] ?? "";
        const head = this.headOf(kv);
        if (TENANT.test(tenant) && head.signer !== this.signer && !head.state.pending) onHead(tenant, head);
      } catch (err) {
        this.log.error({ err, key: kv.key.toString("utf8") }, "an unreadable log head in etcd");
      }
    });
    this.watcher.on("error", (err) => this.log.warn({ err: err.message }, "etcd watch of the log heads"));
  }

  async ping(): Promise<void> {
    await this.client.get(`${this.prefix}ping`).exec();
  }

  async close(): Promise<void> {
    await this.watcher?.cancel().catch(() => undefined);
    this.client.close();
  }
}
