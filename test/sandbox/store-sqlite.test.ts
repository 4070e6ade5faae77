// The SQLite store against the store contract, and what only a database promises. It needs
// node:sqlite (Node 22.13+): on Node 20 it is skipped, and .ci/extra runs it on Node 22.
import { describe } from 'vitest';
import { loadSqlite } from '../../src/sandbox/sqlite-load.js';
import { storeContract } from './store-contract.js';

describe.skipIf(!loadSqlite())('node:sqlite', () => {
  storeContract('sqlite');
});
