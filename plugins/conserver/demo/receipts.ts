import { keysFromKeySet } from "../../../src/index.js";

type ApiRecord = Record<string, unknown> & { identity: string };

/** Reads the service as the demo's tenancy (bearer token). */
export class DemoReader {
  constructor(
    private readonly url: string,
    private readonly token: () => Promise<string>,
  ) {}

  private async get(path: string): Promise<Response> {
    return fetch(`${this.url}${path}`, { headers: { authorization: `Bearer ${await this.token()}` } });
  }

  /** The service's published receipt keys (`/.well-known/scitt-keys`). */
  async keys(): Promise<ReturnType<typeof keysFromKeySet>> {
    const res = await fetch(`${this.url}/.well-known/scitt-keys`);
    return keysFromKeySet(new Uint8Array(await res.arrayBuffer()));
  }

  /** The vCon events with this payload on the vCon's assets, once recorded (undefined before). */
  async findEvents(vconUuid: string, payload: string): Promise<ApiRecord[] | undefined> {
    const q = new URLSearchParams({ "attributes.subject": `vcon://${vconUuid}` });
    const assets = ((await (await this.get(`/archivist/v2/assets?${q}`)).json()) as { assets?: ApiRecord[] })
      .assets;
    const found: ApiRecord[] = [];
    for (const a of assets ?? []) {
      const eq = new URLSearchParams({ "event_attributes.payload": payload });
      const res = await this.get(`/archivist/v2/${a.identity}/events?${eq}`);
      found.push(...(((await res.json()) as { events?: ApiRecord[] }).events ?? []));
    }
    return found.length ? found : undefined;
  }

  /** The event as committed (a confirmation status past PENDING), or undefined. */
  async committed(identity: string): Promise<ApiRecord | undefined> {
    const e = (await (await this.get(`/archivist/v2/${identity}`)).json()) as ApiRecord;
    return e.confirmation_status === "CONFIRMED" || e.confirmation_status === "UNEQUIVOCAL" ? e : undefined;
  }

  /** The event's COSE receipt once its log entry is sealed (the service answers 409 before). */
  async receipt(identity: string): Promise<Uint8Array | undefined> {
    const [, assetId, , eventId] = identity.split("/");
    const res = await this.get(`/archivist/v1/receipts/assets/${assetId}/events/${eventId}`);
    if (res.status === 409) return undefined;
    if (!res.ok) throw new Error(`receipt of ${identity}: HTTP ${res.status} ${await res.text()}`);
    return new Uint8Array(await res.arrayBuffer());
  }
}

/** Polls `fn` every 100 ms until it gives a value, or throws after `ms`. */
export async function poll<T>(fn: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not there within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
