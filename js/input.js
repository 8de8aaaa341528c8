// How a message crosses into the module for validation: text by one TextEncoder.encodeInto
// into a buffer the module keeps (native speed; wasm-bindgen's own string argument is copied
// by a JS loop a character at a time, a quarter of the validation time on large messages),
// bytes (UTF-8, as transports hand them over) by one copy; then the method a response answers.

const MIN_ROOM = 1 << 16;

/** A writer of (text, method) into the module's input buffer → the UTF-8 length of each. */
export function inputWriter(wasm) {
  const memory = wasm.wasmMemory();
  const utf8 = new TextEncoder();
  let view = new Uint8Array(0);
  // The module moves its buffer only when asked for room, so the view stays valid until then
  // (or until memory grows, which detaches it: its length reads 0).
  const reserve = (room) => {
    const size = Math.max(room, MIN_ROOM);
    const at = wasm.inputBuffer(size); // first: it may grow memory, detaching the old buffer
    view = new Uint8Array(memory.buffer, at, size);
  };
  // The method a response answers, written at `at`: method names are short ASCII, which a
  // loop writes faster than a second encodeInto call (about 200 ns of fixed cost in Chromium).
  // Its UTF-8 length, or -1 when it does not fit.
  const writeMethod = (method, at) => {
    const n = method.length;
    if (at + n <= view.length) {
      let i = 0;
      for (; i < n; i++) {
        const c = method.charCodeAt(i);
        if (c > 0x7f) break;
        view[at + i] = c;
      }
      if (i === n) return n;
    }
    const m = utf8.encodeInto(method, view.subarray(at));
    return m.read === n ? m.written : -1;
  };
  const lengths = { text: 0, method: -1 };
  const bytes = (input, method) => {
    const room = input.length + 3 * (method?.length ?? 0);
    if (room > view.length || view.length > MIN_ROOM) reserve(room);
    view.set(input);
    lengths.text = input.length;
    lengths.method = method === undefined ? -1 : writeMethod(method, input.length);
    return lengths;
  };
  return (text, method) => {
    if (typeof text !== "string") return bytes(text, method);
    // ASCII, the common case, takes a byte per UTF-16 unit; any other text at most three.
    const room = text.length + (method?.length ?? 0);
    // After a large message, asking again lets the module give a huge buffer back.
    if (room > view.length || view.length > MIN_ROOM) reserve(room);
    for (let wide = false; ; wide = true) {
      const t = utf8.encodeInto(text, view);
      const m = method === undefined ? -1 : writeMethod(method, t.written);
      if (t.read === text.length && (method === undefined || m >= 0)) {
        lengths.text = t.written;
        lengths.method = m;
        return lengths;
      }
      if (wide) throw new Error("unreachable: three bytes per UTF-16 unit always suffice");
      reserve(room * 3);
    }
  };
}
