// A local stand-in for the Anthropic Messages API, for running a real coding agent (the Claude
// Agent ACP adapter) offline: the only mock in its tests, standing in for the remote model.
// Its model asks for the tool named `wants` when the request offers it and no result of it came
// back yet; once the result is in, it answers with text quoting it. Every other request (titles,
// summaries, probes) gets a short text. Streaming (SSE) and plain JSON answers both.
// With a `script` instead, a conversation plays out: step N of the script answers the request
// whose history holds N answers of the model, `{ tool, input }` as a tool call, `{ text,
// chunks }` as text streamed in that many pieces (a turn ends at a text step).
import http from "node:http";

const sse = (res, events) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  res.end();
};

/** Resolves with `{ url, requests, toolResults, close }`. */
export async function anthropicMock({ wants, script }) {
  const requests = [];
  const toolResults = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      let request = {};
      try { request = JSON.parse(body || "{}"); } catch { /* not JSON */ }
      requests.push({ method: req.method, url: req.url, tools: (request.tools ?? []).map((t) => t.name) });
      if (!req.url.startsWith("/v1/messages") || req.url.startsWith("/v1/messages/count_tokens")) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify(req.url.includes("count_tokens") ? { input_tokens: 10 } : {}));
      }
      const results = (request.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((c) => c.type === "tool_result");
      const offered = (request.tools ?? []).some((t) => t.name === wants);
      const id = `msg_${++n}`;
      const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      const step = script && (request.tools ?? []).length > 0
        ? script[(request.messages ?? []).filter((m) => m.role === "assistant").length] : undefined;
      let content;
      let pieces = 1;
      if (step?.tool) {
        content = { type: "tool_use", id: `toolu_${n}`, name: step.tool, input: step.input };
      } else if (step) {
        content = { type: "text", text: step.text };
        pieces = step.chunks ?? 1;
      } else if (offered && results.length === 0) {
        content = { type: "tool_use", id: `toolu_${n}`, name: wants, input: {} };
      } else {
        const result = results.at(-1);
        if (result) toolResults.push(result);
        const quoted = result ? (Array.isArray(result.content) ? result.content.map((c) => c.text ?? "").join("") : String(result.content ?? "")) : "";
        content = { type: "text", text: result ? `The tool said: ${quoted}` : "Noted." };
      }
      const stop = content.type === "tool_use" ? "tool_use" : "end_turn";
      const message = { id, type: "message", role: "assistant", model: request.model ?? "claude-mock", content: [content], stop_reason: stop, stop_sequence: null, usage };
      if (!request.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify(message));
      }
      const start = content.type === "tool_use" ? { ...content, input: {} } : { type: "text", text: "" };
      const size = content.type === "text" ? Math.ceil(content.text.length / pieces) : 0;
      const deltas = content.type === "tool_use" ? [{ type: "input_json_delta", partial_json: JSON.stringify(content.input) }]
        : Array.from({ length: pieces }, (_, i) => ({ type: "text_delta", text: content.text.slice(i * size, (i + 1) * size) }));
      sse(res, [
        ["message_start", { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }],
        ["content_block_start", { index: 0, content_block: start }],
        ...deltas.map((delta) => ["content_block_delta", { index: 0, delta }]),
        ["content_block_stop", { index: 0 }],
        ["message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }],
        ["message_stop", {}],
      ]);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, toolResults, close: () => { server.closeAllConnections(); server.close(); } };
}
