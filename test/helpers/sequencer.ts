// The order in which vitest hands files to its workers: the longest first. vitest's own
// order runs the longest first only once its cache (node_modules/.vite) knows the
// durations; on a fresh clone, CI's case, it runs the largest files first, and the files
// that run the documentation's examples are small (their commands are in the docs), so the
// longest files came last, where one worker can be left with a long file while the other
// has nothing more to take. Longest first keeps both busy to the end.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Milliseconds per file from a CI run, to regenerate from its JSON report
 * (CARRENTAL_TEST_REPORT=.tmp/report.json): `jq '[.testResults[] | {key: (.name |
 * sub(".*?/test/"; "test/")), value: (.endTime - .startTime)}] | from_entries'
 * .tmp/report.json > test/helpers/durations.json`. Exact values do not matter, the order does.
 */
export const DURATIONS_FILE = 'test/helpers/durations.json';

/** A file not in the table yet, by its kind: the documentation's examples have always been the longest. */
function guess(path: string): number {
  if (path.startsWith('test/readme/') && path.includes('.e2e.')) return 15_000;
  if (/\.(e2e|tmux|browser)\./.test(path)) return 3_000;
  return 800;
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // read here, from the root: vite bundles the config and what it imports elsewhere
    const root = this.ctx.config.root;
    const durations = JSON.parse(readFileSync(join(root, DURATIONS_FILE), 'utf8')) as Record<string, number>;
    const weight = (spec: TestSpecification) => {
      const path = relative(root, spec.moduleId).split('\\').join('/');
      return durations[path] ?? guess(path);
    };
    return [...files].sort((a, b) => {
      const order = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (order !== 0) return order;
      if (a.project.config.sequence.groupOrder === 0) {
        // the files that share the machine: the pooled first, the isolated ones (each a
        // fresh worker, all short) after them: a worker that ends a pooled file is kept for
        // the next only when the next in the queue is pooled too, and short files last even
        // out the workers' ends
        const isolated = Number(a.project.config.isolate) - Number(b.project.config.isolate);
        if (isolated !== 0) return isolated;
        if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      }
      // the files alone, a few lanes of one file each: the longest first
      return weight(b) - weight(a);
    });
  }
}
