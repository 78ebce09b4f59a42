import type { FetchFn } from "vcon-archivist/client";

/** An access permission as the access-policies API takes it (lists left out are empty). */
interface PermissionBody {
  behaviours: string[];
  asset_attributes_read: string[];
  event_arc_display_type_read: string[];
  event_arc_display_type_write: string[];
  user_attributes: Array<{ or: string[] }>;
}

/** The body of `POST /archivist/iam/v1/access_policies` that lets a conserver record vCons. */
export interface ConserverPolicyBody {
  display_name: string;
  filters: Array<{ or: string[] }>;
  access_permissions: PermissionBody[];
}

/**
 * What a conserver's application needs and no more: on vCon assets (the only ones it creates,
 * `arc_display_type=vcon`), create them (`AssetCreator`), record events of any vCon operation
 * (`RecordEvidence`) and read them back (its look-ups find an asset and an event before creating
 * one). It writes no asset attribute after creation, and sees no other asset. Asset-free events
 * stay the administrators'. The README's walk-through posts this same body (a test holds them equal).
 */
export function conserverAccessPolicy(clientId: string): ConserverPolicyBody {
  return {
    display_name: "conserver records vCons",
    filters: [{ or: ["attributes.arc_display_type=vcon"] }],
    access_permissions: [
      {
        behaviours: ["AssetCreator", "RecordEvidence"],
        asset_attributes_read: ["*"],
        event_arc_display_type_read: ["*"],
        event_arc_display_type_write: ["*"],
        user_attributes: [{ or: [`subject=${clientId}`] }],
      },
    ],
  };
}

/** A registered application with the conserver's access policy. */
export interface ConserverApplication {
  clientId: string;
  clientSecret: string;
  /** `applications/<uuid>` */
  application: string;
  /** `access_policies/<uuid>` */
  policy: string;
}

async function posted<T>(fetchFn: FetchFn, url: string, token: string, body: unknown): Promise<T> {
  const res = await fetchFn(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${new URL(url).pathname} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/**
 * Registers an application for a conserver's deliveries and grants it the conserver's access
 * policy, with an administrator's token: the README's steps 2 and 2b, as API calls.
 */
export async function registerConserverApplication(o: {
  url: string;
  /** An administrator's bearer token (the tenancy owner's, from `data/bootstrap.json`). */
  token: string;
  displayName: string;
  fetch?: FetchFn;
}): Promise<ConserverApplication> {
  const fetchFn = o.fetch ?? fetch;
  const base = o.url.replace(/\/+$/, "");
  const app = await posted<{ identity: string; client_id: string; credentials: Array<{ secret: string }> }>(
    fetchFn,
    `${base}/archivist/iam/v1/applications`,
    o.token,
    { display_name: o.displayName },
  );
  const secret = app.credentials[0]?.secret;
  if (!secret) throw new Error(`${base} registered ${app.identity} without a secret`);
  const policy = await posted<{ identity: string }>(
    fetchFn,
    `${base}/archivist/iam/v1/access_policies`,
    o.token,
    conserverAccessPolicy(app.client_id),
  );
  return {
    clientId: app.client_id,
    clientSecret: secret,
    application: app.identity,
    policy: policy.identity,
  };
}
