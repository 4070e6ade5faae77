// The Node 20 store (one JSON document) against the store contract, on any Node.
import { storeContract } from './store-contract.js';

storeContract('json');
