// `--json a,b,c`: the field list a person types, read into names (selecting them is
// src/render/json-select.ts's).
import { usageError } from '../errors.js';

const FIELD_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseJsonFields(text: string): string[] {
  const fields = text.split(',').map((f) => f.trim());
  const bad = fields.find((f) => !FIELD_RE.test(f));
  if (bad !== undefined) {
    throw usageError(`--json takes a comma-separated list of field names, got "${text.replace(/[^\x20-\x7e]/g, '?')}"`, 'for example `cars --json car_alias,name` (arguments such as a uuid go before --json); --jq reaches anything deeper');
  }
  return [...new Set(fields)];
}
