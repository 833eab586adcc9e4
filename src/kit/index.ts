export { createMediaBuyKit, accountIdOf } from './media-buy-kit.js';
export type { MediaBuyKit, MediaBuyKitOptions } from './media-buy-kit.js';
export type { BuyDecision, MediaBuySeller, ProductQuery, ProposalDraft, ProposedBuy, RefineVerdict } from './seller.js';
export { MemoryKitRecords, SqliteKitRecords } from './records.js';
export type { KitKind, KitRecord, KitRecords } from './records.js';
export { PgKitRecords } from './pg-records.js';
export { defaultAcceptTerms, validActions, TERMINAL_STATUSES } from './media-buy-rules.js';
