export { startReferenceSeller, type ReferenceSeller, type ReferenceSellerOptions } from './start-reference-seller.js';
export { sellerTools, type SellerTimings, type SellerToolDeps } from './seller-tools.js';
export { CATALOG, searchCatalog, type CatalogProduct } from './catalog.js';
