/**
 * The console's deep links: the address's fragment names what the console shows, so a link
 * opens it directly (after sign-in: the token is never in the address). The fragment stays on
 * this page: browsers send no fragment to the service.
 *
 * - `#vcon=<uuid>`: a vCon's trail;
 * - `#asset=<uuid>`: an asset's trail;
 * - `#record=assets/<uuid>/events/<uuid>` or `#record=events/<uuid>`: one record, in its trail.
 */
export type ConsoleLink =
  | { kind: "vcon"; uuid: string }
  | { kind: "asset"; uuid: string }
  | { kind: "record"; identity: string; asset?: string };

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const ASSET_EVENT = new RegExp(`^assets/(${UUID})/events/${UUID}$`);
const FREE_EVENT = new RegExp(`^events/${UUID}$`);
const BARE = new RegExp(`^${UUID}$`);

/** The link a fragment names (with or without its `#`), or undefined for anything else. */
export function parseConsoleLink(fragment: string): ConsoleLink | undefined {
  const m = /^#?(vcon|asset|record)=(.+)$/.exec(fragment);
  if (!m) return undefined;
  let value: string;
  try {
    value = decodeURIComponent(m[2] as string).toLowerCase();
  } catch {
    return undefined;
  }
  if (m[1] === "record") {
    const a = ASSET_EVENT.exec(value);
    if (a) return { kind: "record", identity: value, asset: a[1] as string };
    return FREE_EVENT.test(value) ? { kind: "record", identity: value } : undefined;
  }
  if (!BARE.test(value)) return undefined;
  return { kind: m[1] as "vcon" | "asset", uuid: value };
}

/** The fragment of a link, `#` included. */
export function consoleFragment(link: ConsoleLink): string {
  return link.kind === "record" ? `#record=${link.identity}` : `#${link.kind}=${link.uuid}`;
}
