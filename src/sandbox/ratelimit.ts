// Rate budgets in fixed UTC-minute windows of the sandbox clock (so a test with a fixed
// clock is deterministic, and advancing the clock opens a new window). Counters live in
// this process: sandboxes sharing a state file do not share budgets.

export type Budget = 'catalog' | 'general' | 'key';

const WINDOW_MS = 60_000;

export interface RateLimiter {
  /** Spends one call; returns null when allowed, else the Retry-After in seconds. */
  spend(budget: Budget, id: string, nowMs: number): number | null;
  reset(): void;
}

export function createRateLimiter(limitOf: (budget: Budget) => number): RateLimiter {
  let window = Number.NaN;
  const counts = new Map<string, number>();
  return {
    spend(budget, id, nowMs) {
      const current = Math.floor(nowMs / WINDOW_MS);
      if (current !== window) {
        window = current;
        counts.clear();
      }
      const key = `${budget}\u0000${id}`;
      const used = counts.get(key) ?? 0;
      if (used >= limitOf(budget)) {
        return Math.max(1, Math.ceil(((current + 1) * WINDOW_MS - nowMs) / 1000));
      }
      counts.set(key, used + 1);
      return null;
    },
    reset() {
      counts.clear();
    },
  };
}
