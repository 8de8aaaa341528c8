// Editor for the mcpServers list of session/new and session/load, validated as you type.
// stdio: name, command, args, env; http/sse: name, url, headers.
import { h, replace } from "../lib/dom.js";

const lines = (text) => text.split("\n").map((l) => l.trim()).filter(Boolean);

function pairs(text, sep, what) {
  const out = [];
  const errors = [];
  for (const line of lines(text)) {
    const at = line.indexOf(sep);
    if (at <= 0) { errors.push(`${what} "${line}" needs the form NAME${sep}value`); continue; }
    out.push({ name: line.slice(0, at).trim(), value: line.slice(at + 1).trim() });
  }
  return { out, errors };
}

export function createMcpServerEditor(root, { onChange }) {
  const rows = h("ol", { id: "mcp-servers", "data-testid": "mcp-servers", class: "servers" });
  const addBtn = h("button", { type: "button", id: "add-mcp-server", "data-testid": "add-mcp-server", onclick: () => add() }, "+ MCP server");
  replace(root, h("div", { class: "stack" }, h("span", { class: "field-label" }, "MCP servers"), rows, addBtn));
  const servers = [];
  let allowed = { http: false, sse: false };
  let counter = 0;

  function add() {
    const n = ++counter;
    const id = (s) => `mcp-${n}-${s}`;
    const s = {
      type: h("select", { id: id("type"), "aria-label": "transport", onchange: changed },
        ["stdio", "http", "sse"].map((t) => h("option", { value: t }, t))),
      name: h("input", { id: id("name"), placeholder: "name", "aria-label": "name", oninput: changed }),
      command: h("input", { id: id("command"), placeholder: "/path/to/server", "aria-label": "command", oninput: changed }),
      args: h("textarea", { id: id("args"), rows: "2", placeholder: "one argument per line", "aria-label": "arguments, one per line", oninput: changed }),
      env: h("textarea", { id: id("env"), rows: "2", placeholder: "NAME=value per line", "aria-label": "environment, NAME=value per line", oninput: changed }),
      url: h("input", { id: id("url"), type: "url", placeholder: "https://host/mcp", "aria-label": "url", oninput: changed }),
      headers: h("textarea", { id: id("headers"), rows: "2", placeholder: "Header: value per line", "aria-label": "headers, Header: value per line", oninput: changed }),
      errors: h("ul", { class: "field-errors", id: id("errors"), "aria-live": "polite" }),
    };
    s.stdioPart = h("div", { class: "grid-2" }, s.command, s.args, s.env);
    s.httpPart = h("div", { class: "grid-2" }, s.url, s.headers);
    s.el = h("li", { class: "server", "data-testid": "mcp-server" },
      h("div", { class: "row" }, s.type, s.name,
        h("button", { type: "button", class: "icon", "aria-label": "Remove this server", onclick: () => remove(s) }, "×")),
      s.stdioPart, s.httpPart, s.errors);
    servers.push(s);
    rows.append(s.el);
    applyAllowed(s);
    changed();
    s.name.focus();
  }

  function remove(s) {
    servers.splice(servers.indexOf(s), 1);
    s.el.remove();
    changed();
  }

  function applyAllowed(s) {
    for (const opt of s.type.options) {
      if (opt.value === "stdio") continue;
      opt.disabled = !allowed[opt.value];
      opt.title = allowed[opt.value] ? "" : `the agent did not advertise ${opt.value} MCP servers`;
    }
  }

  /** Validate one row: [server, errors]. */
  function check(s) {
    const type = s.type.value;
    const errors = [];
    const name = s.name.value.trim();
    if (!name) errors.push("name is required");
    if (type !== "stdio" && !allowed[type]) errors.push(`the agent did not advertise ${type} MCP servers`);
    let server;
    if (type === "stdio") {
      const command = s.command.value.trim();
      if (!command) errors.push("command is required");
      const env = pairs(s.env.value, "=", "env");
      errors.push(...env.errors);
      server = { name, command, args: lines(s.args.value), env: env.out };
    } else {
      const url = s.url.value.trim();
      if (!url) errors.push("url is required");
      else {
        try { const u = new URL(url); if (!/^https?:$/.test(u.protocol)) errors.push("url must be http(s)"); } catch { errors.push("url is not a valid URL"); }
      }
      const headers = pairs(s.headers.value, ":", "header");
      errors.push(...headers.errors);
      server = { type, name, url, headers: headers.out };
    }
    if (name && servers.filter((o) => o.name.value.trim() === name).length > 1) errors.push(`name "${name}" is used twice`);
    return [server, errors];
  }

  function changed() {
    for (const s of servers) {
      const stdio = s.type.value === "stdio";
      s.stdioPart.hidden = !stdio;
      s.httpPart.hidden = stdio;
      const [, errors] = check(s);
      replace(s.errors, errors.map((e) => h("li", {}, e)));
      s.el.classList.toggle("invalid", errors.length > 0);
      s.name.setAttribute("aria-invalid", String(errors.some((e) => e.startsWith("name"))));
      s.command.setAttribute("aria-invalid", String(errors.some((e) => e.startsWith("command"))));
      s.url.setAttribute("aria-invalid", String(errors.some((e) => e.startsWith("url"))));
    }
    onChange?.();
  }

  return {
    value: () => servers.map((s) => check(s)[0]),
    errors: () => servers.flatMap((s) => check(s)[1]),
    setAllowed(next) { allowed = { ...next }; servers.forEach(applyAllowed); changed(); },
  };
}
