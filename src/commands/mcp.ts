// `carrental mcp [--allow-booking]`: a Model Context Protocol server over stdio, for AI
// agents. Its own chunk of the build (with the SDK), loaded only when this command runs.
import type { Context } from '../session/context.js';
import { runMcpServer, type McpInput } from '../mcp/server.js';

export function run(input: McpInput, ctx: Context): Promise<number> {
  return runMcpServer(input, ctx);
}
