// A payload as the server sent it: its own bytes (`text`) beside the parsed value. `--json`
// prints `text`; field selection and --jq work on `value`; validation never touches either.
import { memberSpan, rootSpan } from './json-scan.js';

export class RawJson {
  constructor(
    /** The JSON text exactly as received (no surrounding whitespace). */
    readonly text: string,
    /** JSON.parse of that text. */
    readonly value: unknown,
  ) {}
}

/**
 * The payload of a response body: the envelope's `data` or, for a bare payload (the invoice
 * list), the whole body. `body` is the body already parsed by the client.
 */
export function rawPayload(bodyText: string, body: unknown, envelope = true): RawJson {
  const root = rootSpan(bodyText);
  if (!envelope) return new RawJson(bodyText.slice(root.start, root.end), body);
  const data = memberSpan(bodyText, root, 'data');
  if (!data) throw new Error('no "data" member in the response body');
  return new RawJson(bodyText.slice(data.start, data.end), (body as { data: unknown }).data);
}
