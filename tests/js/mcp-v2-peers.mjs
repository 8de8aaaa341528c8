// A server on the official MCP TypeScript SDK v2 (`@modelcontextprotocol/server` with
// `@modelcontextprotocol/node`): both eras on one endpoint (2026-07-28 and the 2025 stateless
// fallback), a tool whose argument is mirrored into a header (`x-mcp-header`), a tool that asks
// for input mid-call (an embedded elicitation, SEP-2322), and a prompt and a resource.
// `requests` records each HTTP request's method and headers as they came over the wire.
import http from "node:http";
import { McpServer, createMcpHandler, fromJsonSchema, inputRequired, acceptedContent } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { listen } from "./http-peers.mjs";

/** The CORS headers of a remote server a page may reach in both eras. */
export const CORS_V2 = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE",
  "access-control-allow-headers": "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name, mcp-param-region",
  "access-control-expose-headers": "mcp-session-id, mcp-protocol-version",
};

function factory() {
  const server = new McpServer({ name: "sdk-v2", version: "2.4.0" }, { capabilities: { tools: {}, prompts: {}, resources: {} } });
  server.registerTool("echo", {
    description: "Echoes its message",
    inputSchema: fromJsonSchema({ type: "object", properties: { message: { type: "string" } }, required: ["message"] }),
  }, async ({ message }) => ({ content: [{ type: "text", text: `echo: ${message}` }] }));
  server.registerTool("sql", {
    description: "Runs a query in a region; the region rides in a header",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" }, query: { type: "string" } },
      required: ["region", "query"],
    }),
  }, async ({ region, query }) => ({ content: [{ type: "text", text: `${query} in ${region}` }] }));
  server.registerTool("deploy", {
    description: "Asks the user to confirm before it deploys",
    inputSchema: fromJsonSchema({ type: "object", properties: { env: { type: "string" } }, required: ["env"] }),
  }, async ({ env }, ctx) => {
    const confirmed = acceptedContent(ctx.mcpReq.inputResponses, "confirm");
    if (confirmed?.confirm !== true) {
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: `Deploy to ${env}?`,
            requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
          }),
        },
        requestState: `deploy:${env}`,
      });
    }
    return { content: [{ type: "text", text: `deployed to ${env}` }] };
  });
  server.registerPrompt("greet", { description: "A greeting" }, async () => ({
    messages: [{ role: "user", content: { type: "text", text: "hello" } }],
  }));
  server.registerResource("readme", "file:///readme.md", { mimeType: "text/markdown" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/markdown", text: "# readme" }],
  }));
  return server;
}

/** Starts the server on loopback; `legacy: "reject"` makes it a 2026-07-28-only endpoint. */
export async function sdkV2Server({ legacy } = {}) {
  const handler = toNodeHandler(createMcpHandler(factory, legacy ? { legacy } : {}));
  const requests = [];
  const httpServer = http.createServer((req, res) => {
    for (const [k, v] of Object.entries(CORS_V2)) res.setHeader(k, v);
    if (req.method === "OPTIONS") return res.writeHead(204).end();
    requests.push({ method: req.method, headers: { ...req.headers } });
    return handler(req, res);
  });
  const port = await listen(httpServer);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () => new Promise((r) => { httpServer.closeAllConnections?.(); httpServer.close(r); }),
  };
}
