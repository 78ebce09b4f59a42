/**
 * The package's `vcon-archivist/service` entry: the whole service in a program's own process, as
 * `archivist serve` runs it. `loadConfig(env, overrides)` reads the same settings as the command
 * (docs: README, Configuration) into a frozen `Config`; `startService(config)` binds the API's port,
 * migrates the database, serves the API and runs the workers until `close()`. Its `url` is the
 * address bound; `ctx.baseUrl` the URL the service names itself by (BASE_URL, or that address).
 */
export type { Config } from "./config.js";
export { ConfigError, loadConfig } from "./config.js";
export type { ErrorCode } from "./errors/codes.js";
export { CodedError } from "./formats/coded-error.js";
export { type RunningService, startService } from "./server.js";
