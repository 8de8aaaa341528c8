// The official ACP SDK 2.4.0 as a peer in-process: an NDJSON stream pair whose one end is a
// transport for agentwire's `connect()` and whose other end is the SDK's stream.
import { ndJsonStream } from "acp-sdk-v2";

/** [transport for agentwire, stream for the SDK's `connect()`]. */
export function sdkStreamPair() {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let toSdk; // the SDK's input
  const transport = {
    onmessage: null, onclose: null, sent: [],
    send(text) { transport.sent.push(text); toSdk.enqueue(encoder.encode(`${text}\n`)); },
    close() {
      try { toSdk.close(); } catch { /* closed */ }
      queueMicrotask(() => transport.onclose?.({ code: 1000, reason: "closed" }));
    },
  };
  const input = new ReadableStream({ start(c) { toSdk = c; } });
  let buffer = "";
  const output = new WritableStream({
    write(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim()) queueMicrotask(() => transport.onmessage?.({ data: line }));
      }
    },
  });
  return [transport, ndJsonStream(output, input)];
}

/** What a JS app can see of a value: JSON's view (undefined members gone). */
export const seen = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
