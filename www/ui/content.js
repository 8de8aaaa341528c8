// ACP/MCP content blocks as DOM (text only through text nodes).
import { h } from "../lib/dom.js";

const bytes = (b64) => (typeof b64 === "string" ? Math.floor((b64.length * 3) / 4) : 0);

/** One ContentBlock (text, image, audio, resource_link, resource). */
export function contentBlock(block) {
  if (!block || typeof block !== "object") return h("span", { class: "muted" }, String(block));
  switch (block.type) {
    case "text": return h("span", { class: "text" }, block.text ?? "");
    case "image": return image(block);
    case "audio": return audio(block);
    case "resource_link": return h("span", { class: "chip", title: block.description ?? "" }, `🔗 ${block.name ?? ""} `, h("code", {}, block.uri ?? ""));
    case "resource": {
      const r = block.resource ?? {};
      return h("details", { class: "resource" }, h("summary", {}, "📄 ", h("code", {}, r.uri ?? "resource"), r.mimeType ? ` ${r.mimeType}` : ""),
        h("pre", {}, r.text ?? (r.blob ? `(${bytes(r.blob)} bytes of binary)` : "")));
    }
    default: return h("details", {}, h("summary", {}, `${block.type ?? "unknown"} content`), h("pre", { class: "json small" }, JSON.stringify(block, null, 2)));
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const caption = (block, icon) => `${icon} ${block.type} ${block.mimeType ?? ""} ${bytes(block.data)} bytes${block.uri ? ` ${block.uri}` : ""}`;

/** An image block shown as the image (a data: URL, which the relay's CSP allows for images). */
function image(block) {
  const mime = String(block.mimeType ?? "");
  if (!/^image\/[\w.+-]+$/.test(mime) || typeof block.data !== "string" || !BASE64.test(block.data)) return h("span", { class: "chip" }, caption(block, "🖼"));
  const img = h("img", { src: `data:${mime};base64,${block.data}`, alt: `image (${mime})`, "data-testid": "content-image", class: "content-image" });
  img.addEventListener("error", () => img.replaceWith(h("span", { class: "chip bad-text" }, `${caption(block, "🖼")}: not a readable image`)), { once: true });
  return h("figure", { class: "content-media" }, img, h("figcaption", { class: "muted small" }, caption(block, "🖼")));
}

let audioContext = null;

/**
 * An audio block: decoded and played with Web Audio, from the bytes in the page. An <audio>
 * element would need a data: or blob: source, which the relay's CSP (media-src 'self') refuses.
 */
function audio(block) {
  const info = h("span", { class: "muted small", "data-testid": "content-audio-info" }, caption(block, "🔊"));
  if (typeof block.data !== "string" || !BASE64.test(block.data)) return h("span", { class: "chip" }, caption(block, "🔊"));
  let buffer = null;
  let playing = null;
  const play = h("button", { type: "button", "data-testid": "content-audio-play", disabled: true }, "▶ Play");
  const el = h("div", { class: "content-media row", "data-testid": "content-audio", "data-state": "decoding" }, play, info);
  (async () => {
    try {
      audioContext ??= new AudioContext();
      const raw = Uint8Array.from(atob(block.data), (c) => c.charCodeAt(0));
      buffer = await audioContext.decodeAudioData(raw.buffer);
      el.dataset.state = "ready";
      el.dataset.duration = buffer.duration.toFixed(2);
      info.textContent = `${caption(block, "🔊")} · ${buffer.duration.toFixed(2)} s`;
      play.disabled = false;
    } catch (err) {
      el.dataset.state = "failed";
      info.textContent = `${caption(block, "🔊")}: cannot be decoded (${err?.message ?? err})`;
    }
  })();
  play.addEventListener("click", async () => {
    if (playing) { playing.stop(); return; }
    await audioContext.resume();
    playing = audioContext.createBufferSource();
    playing.buffer = buffer;
    playing.connect(audioContext.destination);
    playing.onended = () => { playing = null; play.textContent = "▶ Play"; };
    playing.start();
    play.textContent = "■ Stop";
  });
  return el;
}

/** One ToolCallContent (content, diff, terminal). */
export function contentSummary(item) {
  if (!item || typeof item !== "object") return null;
  if (item.type === "content") return h("div", { class: "tool-content" }, contentBlock(item.content));
  if (item.type === "diff" && Array.isArray(item.changes)) {
    // v2: `changes` names the files and operations; `patch` (optional) is renderable text.
    return h("details", { class: "diff", open: true }, h("summary", {}, `diff · ${item.changes.length} file${item.changes.length === 1 ? "" : "s"}`),
      h("ul", { class: "changes" }, item.changes.map((c) => h("li", {}, h("span", { class: "badge" }, c?.operation ?? "change"), " ",
        c?.oldPath ? [h("code", {}, c.oldPath), " → "] : null, h("code", {}, c?.path ?? "")))),
      typeof item.patch?.text === "string" ? h("pre", { class: "patch" }, item.patch.text) : null);
  }
  if (item.type === "diff") {
    return h("details", { class: "diff", open: true }, h("summary", {}, "diff ", h("code", {}, item.path ?? "")),
      item.oldText != null ? h("pre", { class: "old" }, item.oldText) : h("p", { class: "muted" }, "(new file)"),
      h("pre", { class: "new" }, item.newText ?? ""));
  }
  if (item.type === "terminal") return h("div", { class: "tool-content" }, "terminal ", h("code", {}, item.terminalId ?? ""));
  return contentBlock(item);
}
