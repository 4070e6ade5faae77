// Rate budgets in fixed UTC-minute windows of the sandbox clock (so a test with a fixed
// clock is deterministic, and advancing the clock opens a new window). The spec's budgets
// are "shared by all API instances": where the store can keep counts for every process on
// the same state (the SQLite store), they are counted there; otherwise (the Node 20 store,
// memory) in this process.

export type Budget = 'catalog' | 'general' | 'key';

const WINDOW_MS = 60_000;

/** Counts kept where every process on the same state sees them. */
export interface SharedCounts {
  /** Counts one call of `name` in `window` when fewer than `limit` were counted; false when the budget is spent. */
  spend(name: string, window: number, limit: number): boolean;
  reset(): void;
}

export interface RateLimiter {
  /** Spends one call; returns null when allowed, else the Retry-After in seconds. */
  spend(budget: Budget, id: string, nowMs: number): number | null;
  reset(): void;
}

/** In this process only. */
function localCounts(): SharedCounts {
  let current = Number.NaN;
  const counts = new Map<string, number>();
  return {
    spend(name, window, limit) {
      if (window !== current) {
        current = window;
        counts.clear();
      }
      const used = counts.get(name) ?? 0;
      if (used >= limit) return false;
      counts.set(name, used + 1);
      return true;
    },
    reset() {
      counts.clear();
    },
  };
}

export function createRateLimiter(limitOf: (budget: Budget) => number, shared?: SharedCounts): RateLimiter {
  const counts = shared ?? localCounts();
  return {
    spend(budget, id, nowMs) {
      const limit = limitOf(budget);
      // an unlimited budget (`--no-rate-limit`) is not counted: nothing to share, no write per request
      if (limit >= Number.MAX_SAFE_INTEGER) return null;
      const window = Math.floor(nowMs / WINDOW_MS);
      if (counts.spend(`${budget}\u0000${id}`, window, limit)) return null;
      return Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000));
    },
    reset() {
      counts.reset();
    },
  };
}
