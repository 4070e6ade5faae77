// The floor under `carrental mcp` start-up (bench/mcp-startup): the smallest stdio server the
// v2 SDK makes, one tool with a one-field input schema, served as the SDK's own guide does.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

serveStdio(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
});
