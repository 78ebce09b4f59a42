import type { Ctx } from "../context.js";
import type { Authenticator } from "../services/identity/auth.js";
import type { RateLimiter } from "./rate-limit.js";

/** What route modules need besides their schemas. */
export interface HttpDeps {
  ctx: Ctx;
  auth: Authenticator;
  /** The per-tenancy request limit, when one is configured (a batch charges its other items). */
  limiter?: RateLimiter | undefined;
}
