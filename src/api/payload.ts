// `--json` prints the payload exactly as the server sent it: the envelope's `data`, or the
// whole body where there is no envelope. The zod-validated copy is for rendering only
// (validation rebuilds objects, which reorders their keys).
import type { ApiResponse } from './client.js';

export function payloadOf(res: Pick<ApiResponse<unknown>, 'body'>, envelope = true): unknown {
  return envelope ? (res.body as { data: unknown }).data : res.body;
}
