import type { Ctx } from "../context.js";
import type { Authenticator } from "../services/identity/auth.js";

/** What route modules need besides their schemas. */
export interface HttpDeps {
  ctx: Ctx;
  auth: Authenticator;
}
