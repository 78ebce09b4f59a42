export { DEFAULT_RETRY_POLICY, type RetryPolicy, rateLimitWaitMs } from "vcon-archivist/client";
export { type CliIo, conserverCli } from "./cli.js";
export { DELIVERY_DEFAULTS } from "./config/delivery-section.js";
export { expandEnv } from "./config/expand-env.js";
export { loadConfig, parseConfig } from "./config/load-config.js";
export type { ChainConfig, ConserverConfig, DeliveryConfig, LinkConfig } from "./config/types.js";
export { type DeadLetterView, dlqList, dlqRetry } from "./dead-letters/delivery-redrive.js";
export {
  type DeadLetter,
  type DeadLetterStore,
  deadLetterKey,
  MemoryDeadLetterStore,
  RedisDeadLetterStore,
} from "./dead-letters/delivery-store.js";
export { AssetResolver, type ResolvedAsset, vconAssetAttributes } from "./delivery/assets.js";
export {
  BATCH_JOB,
  BatchingDeliveryQueue,
  type DeliveryBatch,
  type DeliveryPayload,
  isBatch,
} from "./delivery/batch.js";
export { ArchivistClient } from "./delivery/client.js";
export { type DeliveryOutcome, deliver } from "./delivery/deliver.js";
export {
  type AssetClaims,
  type DeliveryClaims,
  type EventClaims,
  RedisDeliveryClaims,
} from "./delivery/delivery-claims.js";
export { PermanentDeliveryError, TransientDeliveryError } from "./delivery/errors.js";
export { type DeliveryBackend, type DeliveryJob, idempotencyKey, jobProblem } from "./delivery/job.js";
export { type ConserverMetrics, conserverMetrics, createConserverMetrics } from "./delivery/metrics.js";
export { type FetchFn, TokenSource, tokenUrl } from "./delivery/token-source.js";
export { type DeliveryWorker, type DeliveryWorkerOptions, startDeliveryWorker } from "./delivery/worker.js";
export { ConserverError, type ConserverErrorCode, type ConserverPluginErrorCode } from "./errors.js";
export * as archivistLink from "./links/archivist.js";
export { backendFromOptions } from "./links/backend-options.js";
export { BUILTIN_LINKS, resolveLinkModule } from "./links/registry.js";
export * as scittLink from "./links/scitt.js";
export { SCITT_ENV, scittFromEnv } from "./links/scitt-env.js";
export { coseStatementSigner, HttpRegistrar, type HttpRegistrarOptions } from "./links/scitt-http.js";
export type {
  LinkContext,
  LinkModule,
  LinkOptions,
  Registrar,
  Registration,
  StatementSigner,
} from "./links/types.js";
export { normaliseOperation } from "./operation.js";
export { type ResolvedLink, resolveLinks, runChain } from "./runtime/chain.js";
export { type LinkRuntime, type LinkRuntimeOptions, startLinkRuntime } from "./runtime/redis-lists.js";
export { type RunConserverOptions, type RunningConserver, runConserver } from "./runtime/run-conserver.js";
export {
  buildWebhookApp,
  chainAcceptor,
  queueAcceptor,
  startWebhookIngress,
  type WebhookAcceptor,
  type WebhookIngress,
  type WebhookOptions,
} from "./runtime/webhook.js";
export { MemoryVconStore } from "./store/memory-store.js";
export { RedisVconStore } from "./store/redis-store.js";
export type { VconStore } from "./store/vcon-store.js";
export {
  buildVconEvent,
  TEMPLATE_VERSION,
  type TemplateConfig,
  type TimestampFallback,
  type VconEventBody,
} from "./template.js";
export * from "./vcon.js";
