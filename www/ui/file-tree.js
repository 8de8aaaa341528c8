// A small file tree held in the page. It answers fs/read_text_file and fs/write_text_file for
// the agent, and the user can edit every file in a textarea.
import { h, replace } from "../lib/dom.js";
import { RequestError } from "../lib/request-error.js";

export const DEFAULT_ROOT = "/home/user/project";

const DEMO_FILES = {
  "README.md": "# Demo project\n\nA tiny project the agent can read and write through the playground.\n",
  "src/main.rs": "fn main() {\n    println!(\"hello from the playground\");\n}\n",
  "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
  "notes/todo.txt": "- read README.md\n- add a test for add()\n",
};

export function createFileTree(root, { log = () => {} } = {}) {
  let base = DEFAULT_ROOT;
  const files = new Map(Object.entries(DEMO_FILES).map(([rel, text]) => [`${base}/${rel}`, text]));
  let current = `${base}/README.md`;

  const list = h("ul", { id: "file-tree", "data-testid": "file-tree", class: "file-tree", "aria-label": "Files" });
  const editor = h("textarea", { id: "file-editor", "data-testid": "file-editor", rows: "8", spellcheck: "false", oninput: () => files.set(current, editor.value) });
  const editorLabel = h("span", { class: "field-label", id: "file-editor-label" });
  editor.setAttribute("aria-labelledby", "file-editor-label");
  const newPath = h("input", { id: "file-new-path", placeholder: "src/new.txt", "aria-label": "New file path (relative to the root)" });
  const access = h("ul", { id: "fs-log", class: "fs-log", "aria-live": "polite" });
  replace(root,
    h("div", { class: "files" }, list,
      h("div", { class: "stack" }, editorLabel, editor,
        h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); create(newPath.value); newPath.value = ""; } },
          newPath, h("button", { type: "submit", id: "file-new" }, "Add file")))),
    h("details", {}, h("summary", {}, "Agent file access"), access));
  render();

  function rel(path) { return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path; }

  function render() {
    const paths = [...files.keys()].sort();
    replace(list, paths.map((p) => h("li", {},
      h("button", { type: "button", class: `file${p === current ? " selected" : ""}`, "data-path": p, "aria-current": p === current ? "true" : null,
        style: { "--depth": String(rel(p).split("/").length - 1) }, onclick: () => open(p) }, rel(p)))));
    editorLabel.textContent = current;
    editor.value = files.get(current) ?? "";
  }

  function open(path) { current = path; render(); }

  function create(relPath) {
    const clean = relPath.trim().replace(/^\/+/, "");
    if (!clean) return;
    const path = relPath.trim().startsWith("/") ? relPath.trim() : `${base}/${clean}`;
    if (!files.has(path)) files.set(path, "");
    open(path);
  }

  function mark(path, verb) {
    access.prepend(h("li", {}, `${new Date().toLocaleTimeString()} ${verb} `, h("code", {}, path)));
    const btn = list.querySelector(`[data-path="${CSS.escape(path)}"]`);
    if (btn) { btn.classList.remove("flash"); void btn.offsetWidth; btn.classList.add("flash"); }
    log(`${verb} ${path}`);
  }

  /** fs/read_text_file: line is 1-based, limit a number of lines. */
  function read({ path, line, limit }) {
    if (typeof path !== "string" || !path.startsWith("/")) throw new RequestError(-32602, "path must be absolute", { path });
    if (!files.has(path)) { mark(path, "read (not found)"); throw new RequestError(-32002, `Resource not found: ${path}`, { uri: path }); }
    let content = files.get(path);
    if (line != null || limit != null) {
      const lines = content.split("\n");
      const start = Math.max(0, (line ?? 1) - 1);
      content = lines.slice(start, limit != null ? start + limit : undefined).join("\n");
    }
    mark(path, "read");
    return { content };
  }

  /** fs/write_text_file: creates or replaces the file. */
  function write({ path, content }) {
    if (typeof path !== "string" || !path.startsWith("/")) throw new RequestError(-32602, "path must be absolute", { path });
    files.set(path, String(content ?? ""));
    if (path === current) editor.value = files.get(path);
    render();
    mark(path, "wrote");
    return {};
  }

  /** Move the demo files under a session's cwd so that relative names keep working. */
  function setRoot(cwd) {
    if (!cwd || cwd === base) return;
    const moved = new Map();
    for (const [p, text] of files) moved.set(p.startsWith(`${base}/`) ? `${cwd}/${p.slice(base.length + 1)}` : p, text);
    current = current.startsWith(`${base}/`) ? `${cwd}/${current.slice(base.length + 1)}` : current;
    base = cwd.replace(/\/+$/, "");
    files.clear();
    for (const [p, t] of moved) files.set(p, t);
    render();
  }

  return { read, write, setRoot, files: () => files, current: () => current, root: () => base };
}
