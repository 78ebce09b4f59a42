import { ConserverError } from "../errors.js";

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${NAME}` (or `${NAME:-default}`) in every string of a parsed config, so secrets can
 * stay in the environment; an unset variable without default is an error naming the key.
 */
export function expandEnv(v: unknown, env: NodeJS.ProcessEnv, path = ""): unknown {
  if (typeof v === "string")
    return v.replace(VAR, (_m, name: string, dflt: string | undefined) => {
      const value = env[name] ?? dflt;
      if (value === undefined)
        throw new ConserverError(
          "CONFIG_INVALID",
          `${path || "config"}: environment variable ${name} is not set`,
        );
      return value;
    });
  if (Array.isArray(v)) return v.map((item, i) => expandEnv(item, env, `${path}[${i}]`));
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) out[k] = expandEnv(item, env, path ? `${path}.${k}` : k);
    return out;
  }
  return v;
}
