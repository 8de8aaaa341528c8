// How a message's text crosses into the module for validation: one TextEncoder.encodeInto
// into a buffer the module keeps (native speed; wasm-bindgen's own string argument is copied
// by a JS loop a character at a time, a quarter of the validation time on large messages).

const MIN_ROOM = 1 << 16;

/** A writer of (text, method) into the module's input buffer → the UTF-8 length of each. */
export function inputWriter(wasm) {
  const memory = wasm.wasmMemory();
  const utf8 = new TextEncoder();
  let view = new Uint8Array(0);
  const lengths = { text: 0, method: -1 };
  return (text, method) => {
    // ASCII, the common case, takes a byte per UTF-16 unit; any other text at most three.
    let room = text.length + (method?.length ?? 0);
    for (let wide = false; ; wide = true) {
      const size = Math.max(room, MIN_ROOM);
      const at = wasm.inputBuffer(size);
      // A new address or size, or memory grown since (the old view is then detached).
      if (view.byteOffset !== at || view.length !== size || view.buffer !== memory.buffer) {
        view = new Uint8Array(memory.buffer, at, size);
      }
      const t = utf8.encodeInto(text, view);
      const m = method === undefined ? null : utf8.encodeInto(method, view.subarray(t.written));
      if (t.read === text.length && (m === null || m.read === method.length)) {
        lengths.text = t.written;
        lengths.method = m === null ? -1 : m.written;
        return lengths;
      }
      if (wide) throw new Error("unreachable: three bytes per UTF-16 unit always suffice");
      room *= 3;
    }
  };
}
