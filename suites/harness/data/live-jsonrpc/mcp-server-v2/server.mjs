// An MCP server of protocol revision 2026-07-28 over stdio, built on the real TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0: "implementing the 2026-07-28 MCP spec", its README), for the live tier
// (tools/wirecheck/harness/jsonrpc_live.py, subject mcp-server-v2). Only the registrations are ours, as the SDK's
// serveStdio example shows them (dist/stdio.d.mts): one tool, one resource, one prompt; the SDK picks the era from
// the opening exchange and writes every byte on stdout.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "wirecheck-live", version: "1.0.0" },
                               { capabilities: { tools: {}, resources: {}, prompts: {} } });
  server.registerTool("echo", { description: "Echoes its message", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: "text", text: message }] }));
  server.registerResource("readme", "file:///readme.txt", { mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, text: "hello" }] }));
  server.registerPrompt("greet", { description: "A greeting" },
    async () => ({ messages: [{ role: "user", content: { type: "text", text: "hello" } }] }));
  return server;
});
