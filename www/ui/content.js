// ACP/MCP content blocks as DOM (text only through text nodes).
import { h } from "../lib/dom.js";

const bytes = (b64) => (typeof b64 === "string" ? Math.floor((b64.length * 3) / 4) : 0);

/** One ContentBlock (text, image, audio, resource_link, resource). */
export function contentBlock(block) {
  if (!block || typeof block !== "object") return h("span", { class: "muted" }, String(block));
  switch (block.type) {
    case "text": return h("span", { class: "text" }, block.text ?? "");
    case "image": return h("span", { class: "chip" }, `🖼 image ${block.mimeType ?? ""} ${bytes(block.data)} bytes${block.uri ? ` ${block.uri}` : ""}`);
    case "audio": return h("span", { class: "chip" }, `🔊 audio ${block.mimeType ?? ""} ${bytes(block.data)} bytes`);
    case "resource_link": return h("span", { class: "chip", title: block.description ?? "" }, `🔗 ${block.name ?? ""} `, h("code", {}, block.uri ?? ""));
    case "resource": {
      const r = block.resource ?? {};
      return h("details", { class: "resource" }, h("summary", {}, "📄 ", h("code", {}, r.uri ?? "resource"), r.mimeType ? ` ${r.mimeType}` : ""),
        h("pre", {}, r.text ?? (r.blob ? `(${bytes(r.blob)} bytes of binary)` : "")));
    }
    default: return h("details", {}, h("summary", {}, `${block.type ?? "unknown"} content`), h("pre", { class: "json small" }, JSON.stringify(block, null, 2)));
  }
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
