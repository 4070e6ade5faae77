// The documents whose examples are run and whose links are checked: README.md, then every
// page of the manual (docs/), as paths relative to the repository.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/bin.js';

export const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
