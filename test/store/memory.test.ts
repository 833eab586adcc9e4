import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { MemoryIdempotencyStore } from '../../src/store/memory-idempotency-store.js';
import { dedupStoreContract } from './dedup-contract.js';
import { idempotencyStoreContract } from './idempotency-contract.js';
import { operationStoreContract } from './operation-contract.js';

dedupStoreContract('MemoryDedupStore', () => new MemoryDedupStore());
operationStoreContract('MemoryOperationStore', () => new MemoryOperationStore());
idempotencyStoreContract('memory', () => new MemoryIdempotencyStore());
