// A stdio MCP server on the official SDK for what server-everything does not offer: audio the
// browser can decode (a short WAV tone; the demo agent's conformance audio is a header without
// samples), and tools whose structuredContent breaks their outputSchema or is missing. The
// relay starts it as the e2e tests' `sdk-mcp` agent.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** A mono 16-bit PCM WAV of `seconds` of a `hz` sine, base64. */
function tone(hz = 440, seconds = 0.25, rate = 8000) {
  const samples = Math.round(rate * seconds);
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write("RIFF", 0); buf.writeUInt32LE(36 + samples * 2, 4); buf.write("WAVE", 8);
  buf.write("fmt ", 12); buf.writeUInt32LE(16, 16); buf.writeUInt16LE(1, 20); buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24); buf.writeUInt32LE(rate * 2, 28); buf.writeUInt16LE(2, 32); buf.writeUInt16LE(16, 34);
  buf.write("data", 36); buf.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / rate)), 44 + i * 2);
  return buf.toString("base64");
}

const WEATHER = { type: "object", properties: { temperature: { type: "number" }, conditions: { type: "string" } }, required: ["temperature", "conditions"] };
const none = { type: "object", properties: {} };

const server = new Server({ name: "sdk-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
  { name: "tone", description: "A quarter second of A4 as WAV audio", inputSchema: none },
  { name: "bad-weather", description: "structuredContent that breaks its outputSchema", inputSchema: none, outputSchema: WEATHER },
  { name: "no-weather", description: "an outputSchema and no structuredContent", inputSchema: none, outputSchema: WEATHER },
] }));
server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
  switch (params.name) {
    case "tone": return { content: [{ type: "text", text: "A4, 440 Hz" }, { type: "audio", mimeType: "audio/wav", data: tone() }] };
    case "bad-weather": return { content: [{ type: "text", text: "hot" }], structuredContent: { temperature: "hot" } };
    default: return { content: [{ type: "text", text: "no structure" }] };
  }
});
await server.connect(new StdioServerTransport());
