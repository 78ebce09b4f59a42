import { reportPhase, runPhase } from "../phase.js";
import type { Scenario } from "../scenario.js";
import { rs256SignLimit } from "./core.js";

/** `tokens`: client-credentials token requests per second (each one an RS256 JWT signature). */
export const tokens: Scenario = {
  name: "tokens",
  async run(ctx) {
    const limit = rs256SignLimit(ctx);
    const d = await ctx.service();
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: d.clientId,
      client_secret: d.clientSecret,
    }).toString();
    const phase = await runPhase(ctx, d, {
      label: "tokens",
      requests: [
        {
          method: "POST",
          path: "/archivist/iam/v1/appidp/token",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body,
        },
      ],
    });
    // One core signs; the limit is what one core can sign, the server may use a little more.
    reportPhase(ctx, "tokens", "token", phase, "tokens/s", {
      rate: { value: limit, label: "RS256 sign/s, 1 core" },
    });
  },
};
