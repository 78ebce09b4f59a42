/**
 * Where the service may post a processor's webhook: not to itself, its network or the cloud's
 * metadata service. A processor's URL is an administrator's to choose, so without this a tenancy
 * could make the service post to loopback, a private network or 169.254.169.254, and read which
 * ports answer from the notice's error (issue 60). Checked when the URL is registered (an address
 * written in it) and when each notice connects (every address its name resolves to, the one
 * connected to included: a name that resolves elsewhere between the two is caught at connect).
 * `ARCHIVIST_WEBHOOK_PRIVATE=allow` lifts it, for processors on the operator's own network and
 * for tests.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent } from "undici";
import { CodedError } from "../../formats/coded-error.js";

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, the cloud metadata service (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  BLOCKED.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local (and AWS's fd00:ec2::254 metadata)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  BLOCKED.addSubnet(net, prefix, "ipv6");

/** Whether a notice may not go to this address (an IPv4-mapped IPv6 address read as its IPv4). */
export function forbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped) return BLOCKED.check(mapped, "ipv4");
  const family = isIP(bare);
  if (family === 4) return BLOCKED.check(bare, "ipv4");
  if (family === 6) {
    // ::ffff:7f00:1 is 127.0.0.1 written in hex.
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
    if (hex) {
      const n = (Number.parseInt(hex[1] as string, 16) << 16) | Number.parseInt(hex[2] as string, 16);
      return BLOCKED.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join("."), "ipv4");
    }
    return BLOCKED.check(bare, "ipv6");
  }
  return false;
}

/** The error every refused or failed connection gives: the same whatever was (or was not) there. */
export class WebhookAddressRefused extends CodedError<"WEBHOOK_ADDRESS_REFUSED"> {
  readonly code = "WEBHOOK_ADDRESS_REFUSED";
  constructor() {
    super("the processor's address is not one the service posts to");
  }
}

/** A `lookup` that resolves as usual and refuses a name with any address a notice may not go to. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, "", 0);
    if (addresses.length === 0 || addresses.some((a) => forbiddenAddress(a.address)))
      return callback(new WebhookAddressRefused(), "", 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
};

let guarded: Agent | undefined;

/**
 * The dispatcher notices are posted through: one whose connections resolve through the guard
 * (undici calls `lookup` only for names; an address written in the URL is checked by
 * `refusedUrl` before the post).
 */
export function webhookDispatcher(allowPrivate: boolean): Agent | undefined {
  if (allowPrivate) return undefined;
  guarded ??= new Agent({ connect: { lookup: guardedLookup } });
  return guarded;
}

/** Whether `url` names, as written, an address a notice may not go to (`localhost` included). */
export function refusedUrl(url: URL, allowPrivate: boolean): boolean {
  if (allowPrivate) return false;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || forbiddenAddress(host);
}
