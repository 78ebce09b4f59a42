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
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
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
  ["64:ff9b:1::", 48], // local-use IPv4/IPv6 translation (RFC 8215): a private network's NAT64
  ["fc00::", 7], // unique local (and AWS's fd00:ec2::254 metadata)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  BLOCKED.addSubnet(net, prefix, "ipv6");

/**
 * The 16 bytes of an IPv6 address in any of its spellings (`::`, a dotted quad at its end, a
 * zone after `%`), or undefined when it is not one.
 */
export function ipv6Bytes(text: string): Uint8Array | undefined {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIP(bare) !== 6) return undefined;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare);
  const hex = quad
    ? `${bare.slice(0, quad.index)}${((Number(quad[1]) << 8) | Number(quad[2])).toString(16)}:${((Number(quad[3]) << 8) | Number(quad[4])).toString(16)}`
    : bare;
  const [head = "", tail] = hex.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...Array<string>(8 - front.length - back.length).fill("0"), ...back];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    const n = Number.parseInt(g, 16);
    out[2 * i] = n >> 8;
    out[2 * i + 1] = n & 255;
  });
  return out;
}

/**
 * The IPv4 address an IPv6 address reaches through, when it embeds one: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, deprecated but
 * still routed by some stacks), NAT64's well-known prefix (64:ff9b::/96, the last 32 bits), 6to4
 * (2002::/16, bits 16 to 48) and Teredo (2001::/32, the client's address in the last 32 bits,
 * inverted). A NAT64 or a relay on the path turns each into that IPv4 address, so it is judged by
 * the IPv4 rules.
 */
export function embeddedIPv4(b: Uint8Array): string | undefined {
  const zero = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  const v4 = (at: number, invert = 0) =>
    Array.from(b.subarray(at, at + 4), (x) => (x ^ invert).toString()).join(".");
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return v4(12);
  if (zero(0, 12)) return v4(12);
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return v4(12);
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  if (b[0] === 0x20 && b[1] === 0x01 && zero(2, 4)) return v4(12, 0xff);
  return undefined;
}

/**
 * Whether a notice may not go to this address: an IPv4 address by the IPv4 rules; an IPv6 one by
 * the IPv6 rules and, when it embeds an IPv4 address (`embeddedIPv4`), by the IPv4 rules too.
 */
export function forbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 4) return BLOCKED.check(bare, "ipv4");
  if (family !== 6) return false;
  const bytes = ipv6Bytes(bare);
  // isIP took it for IPv6: one this parser cannot read is refused rather than let through.
  if (!bytes) return true;
  const v4 = embeddedIPv4(bytes);
  if (v4 !== undefined && BLOCKED.check(v4, "ipv4")) return true;
  const full = Array.from({ length: 8 }, (_, i) =>
    (((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number)).toString(16),
  );
  return BLOCKED.check(full.join(":"), "ipv6");
}

/** The error every refused or failed connection gives: the same whatever was (or was not) there. */
export class WebhookAddressRefused extends CodedError<"WEBHOOK_ADDRESS_REFUSED"> {
  readonly code = "WEBHOOK_ADDRESS_REFUSED";
  constructor() {
    super("the processor's address is not one the service posts to");
  }
}

/** How a name is resolved: `dns.lookup` with `all`, or a test's own answers. */
type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** A `lookup` that resolves as usual and refuses a name with any address a notice may not go to. */
export function guardedLookup(resolve: Resolve = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      if (addresses.length === 0 || addresses.some((a) => forbiddenAddress(a.address)))
        return callback(new WebhookAddressRefused(), "", 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

let guarded: Agent | undefined;

/**
 * The dispatcher notices are posted through: one whose connections resolve through the guard
 * (undici calls `lookup` only for names; an address written in the URL is checked by
 * `refusedUrl` before the post).
 */
export function webhookDispatcher(allowPrivate: boolean): Agent | undefined {
  if (allowPrivate) return undefined;
  guarded ??= new Agent({ connect: { lookup: guardedLookup() } });
  return guarded;
}

/** Whether `url` names, as written, an address a notice may not go to (`localhost` included). */
export function refusedUrl(url: URL, allowPrivate: boolean): boolean {
  if (allowPrivate) return false;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || forbiddenAddress(host);
}
