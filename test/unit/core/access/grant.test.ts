import { describe, expect, it } from "vitest";
import { grantFor } from "../../../../src/core/access/grant.js";
import { canReadEvent, projectAsset, projectEvent } from "../../../../src/core/access/project.js";
import type { AccessGrant, AccessPolicy } from "../../../../src/core/access/types.js";
import { canWriteEvent, writeRefusal } from "../../../../src/core/access/write.js";
import { admin, app, external, member, nobody, permission, policy, SUBJECT_A } from "./fixtures.js";

const appOnly = { user_attributes: [{ or: ["subject=client-1"] }] };
const calls = [{ or: ["attributes.arc_display_type=Call"] }];
const policies: AccessPolicy[] = [
  policy(
    calls,
    permission({
      ...appOnly,
      asset_attributes_read: ["arc_display_type", "site"],
      event_arc_display_type_read: ["vcon.created"],
      behaviours: ["RecordEvidence"],
    }),
    permission({
      user_attributes: [{ or: ["group:maintainers"] }],
      asset_attributes_read: ["*"],
      asset_attributes_write: ["site"],
      event_arc_display_type_write: ["vcon.updated"],
      event_arc_display_type_read: ["*"],
    }),
  ),
  policy(
    [{ or: ["attributes.site=Leeds"] }],
    permission({
      ...appOnly,
      include_attributes: ["owner"],
      event_arc_display_type_read: ["vcon.signed"],
      event_arc_display_type_write: ["vcon.signed"],
      behaviours: ["RecordEvidence", "Builtin"],
    }),
    permission({
      subjects: [SUBJECT_A],
      include_attributes: ["arc_display_type"],
      event_arc_display_type_read: ["vcon.created"],
    }),
  ),
];
const leedsCall = { arc_display_type: "Call", site: "Leeds", owner: "ann", secret: "s" };
const yorkCall = { arc_display_type: "Call", site: "York", owner: "bob", secret: "s" };
const leedsChat = { arc_display_type: "Chat", site: "Leeds", owner: "cy", secret: "s" };

const set = (...names: string[]) => new Set(names);
const none = (): AccessGrant => ({
  read: false,
  readAttributes: set(),
  writeAttributes: set(),
  eventTypesRead: set(),
  eventTypesWrite: set(),
  behaviours: set(),
});

const cases: Array<[string, Parameters<typeof grantFor>[1], Record<string, unknown>, AccessGrant]> = [
  [
    "application, both policies: the union",
    app,
    leedsCall,
    {
      read: true,
      readAttributes: set("arc_display_type", "site", "owner"),
      writeAttributes: set(),
      eventTypesRead: set("vcon.created", "vcon.signed"),
      eventTypesWrite: set("vcon.signed"),
      behaviours: set("RecordEvidence", "Builtin"),
    },
  ],
  [
    "application, first policy only",
    app,
    yorkCall,
    {
      read: true,
      readAttributes: set("arc_display_type", "site"),
      writeAttributes: set(),
      eventTypesRead: set("vcon.created"),
      eventTypesWrite: set(),
      behaviours: set("RecordEvidence"),
    },
  ],
  [
    "member with '*' lists",
    member,
    yorkCall,
    {
      read: true,
      readAttributes: "*",
      writeAttributes: set("site"),
      eventTypesRead: "*",
      eventTypesWrite: set("vcon.updated"),
      behaviours: set(),
    },
  ],
  ["member, no policy matches the asset", member, leedsChat, none()],
  ["unknown application", nobody, leedsCall, none()],
  [
    "OBAC caller via include_attributes",
    external,
    leedsChat,
    {
      read: true,
      readAttributes: set("arc_display_type"),
      writeAttributes: set(),
      eventTypesRead: set("vcon.created"),
      eventTypesWrite: set(),
      behaviours: set(),
    },
  ],
  [
    "administrator",
    admin,
    {},
    {
      read: true,
      readAttributes: "*",
      writeAttributes: "*",
      eventTypesRead: "*",
      eventTypesWrite: "*",
      behaviours: "*",
    },
  ],
];

describe("grantFor", () => {
  it.each(cases)("%s", (_name, caller, attributes, grant) => {
    expect(grantFor(policies, caller, attributes)).toEqual(grant);
  });

  it("grants nothing without policies", () => {
    expect(grantFor([], app, leedsCall)).toEqual(none());
  });
});

describe("projections", () => {
  const appGrant = grantFor(policies, app, leedsCall);
  const asset = { identity: "assets/1", attributes: leedsCall };

  it("keeps only readable attributes of an asset, and hides an unreadable one", () => {
    expect(projectAsset(asset, appGrant)).toEqual({
      identity: "assets/1",
      attributes: { arc_display_type: "Call", site: "Leeds", owner: "ann" },
    });
    expect(projectAsset(asset, grantFor(policies, nobody, leedsCall))).toBeUndefined();
    expect(projectAsset(asset, grantFor(policies, admin, leedsCall))?.attributes).toEqual(leedsCall);
  });

  const events: Array<[string, Record<string, unknown>, boolean]> = [
    ["a permitted type", { arc_display_type: "vcon.signed" }, true],
    ["another type", { arc_display_type: "vcon.deleted" }, false],
    ["no type", {}, false],
    ["a non-string type", { arc_display_type: ["vcon.signed"] }, false],
  ];
  it.each(events)("reads an event of %s: %s", (_n, eventAttributes, readable) => {
    expect(canReadEvent(eventAttributes, appGrant)).toBe(readable);
    const event = {
      identity: "e",
      event_attributes: eventAttributes,
      asset_attributes: { site: "Leeds", secret: "x" },
    };
    expect(projectEvent(event, appGrant)).toEqual(
      readable ? { ...event, asset_attributes: { site: "Leeds" } } : undefined,
    );
  });

  it("reads untyped events only under '*'", () => {
    expect(canReadEvent({}, grantFor(policies, member, yorkCall))).toBe(true);
    expect(canReadEvent({}, grantFor(policies, nobody, yorkCall))).toBe(false);
  });
});

describe("canWriteEvent", () => {
  const appGrant = grantFor(policies, app, leedsCall);
  const memberGrant = grantFor(policies, member, yorkCall);
  const cases: Array<
    [string, AccessGrant, Record<string, unknown>, Record<string, unknown>, string, string | undefined]
  > = [
    ["permitted", appGrant, { arc_display_type: "vcon.signed" }, {}, "RecordEvidence", undefined],
    [
      "wrong behaviour",
      memberGrant,
      { arc_display_type: "vcon.updated" },
      {},
      "RecordEvidence",
      "behaviour RecordEvidence is not permitted",
    ],
    [
      "wrong type",
      appGrant,
      { arc_display_type: "vcon.created" },
      {},
      "RecordEvidence",
      "arc_display_type vcon.created is not permitted",
    ],
    ["no type", appGrant, {}, {}, "RecordEvidence", "without arc_display_type"],
    [
      "unwritable asset attribute",
      appGrant,
      { arc_display_type: "vcon.signed" },
      { site: "York" },
      "RecordEvidence",
      "asset attribute site",
    ],
    [
      "no grant at all",
      grantFor(policies, nobody, leedsCall),
      { arc_display_type: "x" },
      {},
      "RecordEvidence",
      "no access policy",
    ],
    ["administrator", grantFor(policies, admin, {}), {}, { anything: 1 }, "Builtin", undefined],
  ];
  it.each(cases)("%s", (_n, grant, eventAttributes, changes, behaviour, refusal) => {
    const why = writeRefusal(eventAttributes, changes, behaviour, grant);
    if (refusal === undefined) expect(why).toBeUndefined();
    else expect(why).toContain(refusal);
    expect(canWriteEvent(eventAttributes, changes, behaviour, grant)).toBe(refusal === undefined);
  });
});
