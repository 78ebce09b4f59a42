export { ASSET_FIELDS, type AssetSource, assetRecord } from "./asset.js";
export {
  ASSET_EVENT_FIELDS,
  type AssetEventSource,
  assetEventRecord,
} from "./asset-event.js";
export type { RecordFields } from "./fields.js";
export {
  FREE_EVENT_FIELDS,
  FREE_EVENT_SEARCH_FIELDS,
  type FreeEventSource,
  freeEventRecord,
  freeEventSearchRecord,
} from "./free-event.js";
export { FIELDS_V1_V2, FIELDS_V3, FREE_EVENT_HASHED_FIELDS, type HashedAssetEvent } from "./hashed-fields.js";
export {
  type AssetFreeLeafSchema,
  assetEventLeafHash,
  assetFreeEventContent,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetFreeLeafSchemas,
  legacySortedAssetFreeEventContent,
} from "./leaf.js";
