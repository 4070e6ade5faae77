// `carrental sandbox openapi`: prints the OpenAPI 3.1 description of the API, generated
// from the same zod schemas and operations table the CLI and the sandbox use. It is always
// indented JSON (a document to save or pipe to jq), with or without --json. A --base-url
// given on the command line becomes the document's server; otherwise it names a local
// `sandbox serve`. No request is sent and no sandbox is started.
import type { Context } from '../session/context.js';
import { output } from '../session/services.js';

export async function run(_input: unknown, ctx: Context): Promise<number> {
  const { openapiDocument } = await import('../sandbox/openapi.js');
  const serverUrl = ctx.globals.baseUrl && ctx.globals.baseUrl !== 'sandbox' ? ctx.globals.baseUrl.replace(/\/+$/, '') : undefined;
  output(ctx).line(JSON.stringify(openapiDocument({ serverUrl }), null, 2));
  return 0;
}
