import { expect } from "vitest";
import type { TestService } from "./service.js";

/** A permission's holder: the application of this client id (the subject of its tokens). */
export const applicationSubject = (clientId: string) => ({
  user_attributes: [{ or: [`subject=${clientId}`] }],
});

/**
 * Grants `permission` on the assets `filter` selects, as the tenancy administrator `token`: an
 * access policy of that one filter and one permission, whose identity it answers. A refusal
 * fails the test.
 */
export async function grantAccess(
  s: TestService,
  token: string,
  display_name: string,
  filter: string,
  permission: Record<string, unknown>,
): Promise<string> {
  const res = await s.api("/archivist/iam/v1/access_policies", {
    method: "POST",
    token,
    json: { display_name, filters: [{ or: [filter] }], access_permissions: [permission] },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { identity: string }).identity;
}
