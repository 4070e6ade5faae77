// `--json` prints the payload exactly as the server sent it: the envelope's `data`, or the
// whole body where there is no envelope, as the server's own bytes (RawJson). The
// zod-validated copy is for rendering only (validation rebuilds objects, which reorders
// their keys).
import { RawJson, rawPayload } from '../text/raw-json.js';
import type { ApiResponse } from './client.js';

export function payloadOf(res: Pick<ApiResponse<unknown>, 'body' | 'text'>, envelope = true): RawJson {
  return rawPayload(res.text, res.body, envelope);
}
