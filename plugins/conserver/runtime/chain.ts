import type { ChainConfig, ConserverConfig } from "../config/types.js";
import type { ConserverMetrics } from "../delivery/metrics.js";
import { ConserverError } from "../errors.js";
import { resolveLinkModule } from "../links/registry.js";
import type { LinkContext, LinkModule, LinkOptions } from "../links/types.js";

/** A link ready to run: its module and its configured options. */
export interface ResolvedLink {
  name: string;
  module: LinkModule;
  options: LinkOptions;
}

/** Loads every link module a config's enabled chains use (fails early, naming the key). */
export async function resolveLinks(config: ConserverConfig): Promise<Map<string, ResolvedLink>> {
  const out = new Map<string, ResolvedLink>();
  for (const chain of Object.values(config.chains)) {
    if (!chain.enabled) continue;
    for (const name of chain.links) {
      if (out.has(name)) continue;
      const l = config.links[name];
      if (!l) throw new ConserverError("LINK_UNKNOWN", `chains.${chain.name}.links: no link named ${name}`);
      const module = await resolveLinkModule(l.module, config.baseDir, `links.${name}.module`);
      out.set(name, { name, module, options: l.options });
    }
  }
  return out;
}

/**
 * Runs a chain's links in order on one vCon, as the Python conserver does: each link gets the uuid
 * the previous one returned; a null return stops the chain quietly (null is returned); a throw
 * aborts it (the caller dead-letters the vCon).
 */
export async function runChain(
  chain: ChainConfig,
  vconUuid: string,
  links: Map<string, ResolvedLink>,
  ctx: LinkContext,
  metrics?: ConserverMetrics,
): Promise<string | null> {
  let current = vconUuid;
  for (const name of chain.links) {
    const link = links.get(name);
    if (!link) throw new ConserverError("LINK_UNKNOWN", `chains.${chain.name}.links: no link named ${name}`);
    let next: string | null;
    try {
      next = await link.module.run(current, name, link.options, ctx);
    } catch (err) {
      metrics?.links.inc({ link: name, outcome: "error" });
      throw err;
    }
    metrics?.links.inc({ link: name, outcome: next ? "continue" : "stop" });
    if (!next) {
      ctx.log.info({ chain: chain.name, link: name, vconUuid: current }, "chain stopped by link");
      return null;
    }
    current = next;
  }
  return current;
}
