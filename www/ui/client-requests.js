// What an MCP server asks of the client, answered by the user: sampling (the user writes or
// approves the model's answer), elicitation (a form built from `requestedSchema`, or a URL to
// visit), and roots (an editable list; a change is announced with
// notifications/roots/list_changed). Each pending request waits for the user; a request the
// server cancels, or a closed connection, takes its card away.
import { h, replace, field, formatTime } from "../lib/dom.js";
import { RequestError } from "../lib/request-error.js";
import { schemaForm } from "../lib/schema-form.js";
import { contentBlock } from "./content.js";

const DEFAULT_ROOTS = [{ uri: "file:///home/user/project", name: "project" }];

export function createClientRequests(root, { event = () => {}, notify = async () => {} } = {}) {
  const samplingList = h("div", { id: "sampling-requests", "data-testid": "sampling-requests", class: "stack" });
  const elicitationList = h("div", { id: "elicitation-requests", "data-testid": "elicitation-requests", class: "stack" });
  const rootsList = h("ol", { id: "roots-list", "data-testid": "roots-list", class: "roots" });
  const rootsStatus = h("output", { id: "roots-status", "data-testid": "roots-status", class: "muted small" });
  const addRoot = h("button", { type: "button", id: "root-add", "data-testid": "root-add", onclick: () => { editRows.push({ uri: "file:///", name: "" }); renderRoots(); } }, "+ Root");
  const applyRoots = h("button", { type: "button", id: "roots-apply", "data-testid": "roots-apply", class: "primary", onclick: apply }, "Apply and notify");
  const idle = (what) => h("p", { class: "muted small" }, what);

  let roots = DEFAULT_ROOTS.map((r) => ({ ...r }));
  let editRows = roots.map((r) => ({ ...r }));
  let declared = { roots: false, listChanged: false, sampling: false, elicitation: false };
  const pending = new Map();   // request id (JSON) -> { card, settle }

  replace(root,
    h("section", { class: "sub", "aria-labelledby": "sampling-h" }, h("h3", { id: "sampling-h" }, "Sampling requests"), samplingList),
    h("section", { class: "sub", "aria-labelledby": "elicitation-h" }, h("h3", { id: "elicitation-h" }, "Elicitation requests"), elicitationList),
    h("section", { class: "sub", "aria-labelledby": "roots-h" }, h("h3", { id: "roots-h" }, "Roots"),
      h("p", { class: "field-hint" }, "What the server may work in, answered to roots/list. Applying a change sends notifications/roots/list_changed."),
      rootsList, h("div", { class: "row wrap" }, addRoot, applyRoots, rootsStatus)));
  renderIdle();
  renderRoots();

  function renderIdle() {
    if (!samplingList.childElementCount) samplingList.append(idle("None waiting. A server asks with sampling/createMessage when the sampling capability is declared."));
    if (!elicitationList.childElementCount) elicitationList.append(idle("None waiting. A server asks with elicitation/create when the elicitation capability is declared."));
  }
  const clearIdle = (list) => { for (const p of list.querySelectorAll(":scope > p.muted")) p.remove(); };

  function renderRoots() {
    replace(rootsList, editRows.map((r, i) => h("li", { class: "row", "data-testid": "root" },
      h("input", { "data-testid": "root-uri", value: r.uri, "aria-label": `Root ${i + 1} URI`, oninput: (e) => { r.uri = e.target.value; checkRoots(); } }),
      h("input", { "data-testid": "root-name", value: r.name ?? "", placeholder: "name", "aria-label": `Root ${i + 1} name`, oninput: (e) => { r.name = e.target.value; } }),
      h("button", { type: "button", class: "icon", "aria-label": `Remove root ${i + 1}`, onclick: () => { editRows.splice(i, 1); renderRoots(); } }, "×"))));
    checkRoots();
  }

  /** Roots are file:// URIs (the spec's rule for this version of MCP). */
  function checkRoots() {
    const bad = editRows.find((r) => !/^file:\/\/./.test(r.uri.trim()));
    applyRoots.disabled = !!bad || !declared.roots;
    rootsStatus.textContent = !declared.roots ? "declare the roots capability to offer roots" : bad ? `not a file:// URI: ${bad.uri}` : "";
    if (declared.roots && !bad) rootsStatus.textContent = declared.listChanged ? "" : "roots.listChanged not declared: changes are not announced";
  }

  async function apply() {
    roots = editRows.filter((r) => r.uri.trim()).map((r) => (r.name?.trim() ? { uri: r.uri.trim(), name: r.name.trim() } : { uri: r.uri.trim() }));
    if (!declared.listChanged) { rootsStatus.textContent = `${roots.length} roots kept; not announced (no roots.listChanged)`; return; }
    try {
      await notify("notifications/roots/list_changed");
      rootsStatus.textContent = `${roots.length} roots applied; notifications/roots/list_changed sent at ${formatTime(Date.now())}`;
      event(`roots changed (${roots.length}); notifications/roots/list_changed sent`);
    } catch (err) {
      rootsStatus.textContent = `not sent: ${err.message}`;
    }
  }

  /** A card for one pending request; resolves with what the user chose. */
  function ask(list, ctx, build) {
    clearIdle(list);
    return new Promise((resolve, reject) => {
      const key = JSON.stringify(ctx?.id ?? null);
      const card = h("article", { class: "ask card-inner", "data-request-id": String(ctx?.id ?? "") });
      const settle = (fn) => (value) => { pending.delete(key); card.remove(); renderIdle(); fn(value); };
      pending.set(key, { card, settle: settle(reject) });
      build(card, settle(resolve), settle(reject));
      list.append(card);
      card.scrollIntoView?.({ block: "nearest" });
    });
  }

  /** sampling/createMessage: the messages, and an answer the user writes (or approves) as the model. */
  function sampling(params, ctx) {
    event(`sampling/createMessage: waiting for your answer`, "warn");
    return ask(samplingList, ctx, (card, resolve, reject) => {
      const answer = h("textarea", { id: "sampling-answer", "data-testid": "sampling-answer", rows: "3", placeholder: "Write the model's answer", oninput: () => { send.disabled = answer.value.trim() === ""; } });
      const model = h("input", { id: "sampling-model", "data-testid": "sampling-model", value: "playground-user" });
      const send = h("button", { type: "button", id: "sampling-approve", "data-testid": "sampling-approve", class: "primary", disabled: true, onclick: () => {
        resolve({ role: "assistant", content: { type: "text", text: answer.value }, model: model.value.trim() || "playground-user", stopReason: "endTurn" });
        event("sampling/createMessage answered by you");
      } }, "Send answer");
      const rejectBtn = h("button", { type: "button", id: "sampling-reject", "data-testid": "sampling-reject", class: "danger", onclick: () => {
        reject(new RequestError(-1, "User rejected sampling request"));
        event("sampling/createMessage rejected by you", "warn");
      } }, "Reject");
      const hints = params?.modelPreferences?.hints;
      const prefs = Array.isArray(hints) ? hints.map((x) => x?.name).filter((n) => typeof n === "string").join(", ") : "";
      replace(card, h("div", { "data-testid": "sampling-request", class: "stack" },
        h("p", { class: "small muted" }, `request ${ctx?.id ?? ""} · maxTokens ${params?.maxTokens ?? "?"}${prefs ? ` · hints ${prefs}` : ""}${params?.includeContext ? ` · includeContext ${params.includeContext}` : ""}`),
        params?.systemPrompt ? h("p", { class: "small" }, h("strong", {}, "system: "), String(params.systemPrompt)) : null,
        (Array.isArray(params?.messages) ? params.messages : []).map((m) => h("div", { class: `message ${m?.role === "user" ? "user" : "agent"}` }, h("span", { class: "who" }, String(m?.role ?? "")),
          h("div", { class: "body" }, [m?.content].flat().map(contentBlock)))),
        field("Answer as the model", answer), field("model", model),
        h("div", { class: "row" }, send, rejectBtn)));
      answer.focus();
    });
  }

  /** elicitation/create: a form from `requestedSchema`, or (URL mode) the address to visit. */
  function elicitation(params, ctx) {
    event(`elicitation/create (${params?.mode ?? "form"}): waiting for you`, "warn");
    return ask(elicitationList, ctx, (card, resolve) => {
      const answer = (action, content) => () => {
        resolve(content === undefined ? { action } : { action, content });
        event(`elicitation/create: ${action}`);
      };
      const decline = h("button", { type: "button", id: "elicitation-decline", "data-testid": "elicitation-decline", onclick: answer("decline") }, "Decline");
      const cancel = h("button", { type: "button", id: "elicitation-cancel", "data-testid": "elicitation-cancel", class: "ghost", onclick: answer("cancel") }, "Cancel");
      if (params?.mode === "url") {
        let url = null;
        try { url = new URL(params.url); } catch { /* shown as text below */ }
        const safe = url && (url.protocol === "https:" || url.protocol === "http:");
        const accept = h("button", { type: "button", id: "elicitation-accept", "data-testid": "elicitation-accept", class: "primary", onclick: () => {
          if (safe) window.open(url.href, "_blank", "noopener,noreferrer");
          answer("accept")();
        } }, "Open and accept");
        replace(card, h("div", { "data-testid": "elicitation-request", "data-mode": "url", class: "stack" },
          h("p", {}, String(params.message ?? "")),
          h("p", { class: "small" }, "The server asks you to visit ", h("code", { "data-testid": "elicitation-url" }, String(params.url ?? "")),
            url ? h("span", { class: "muted" }, ` (host ${url.host})`) : h("span", { class: "bad-text" }, " (not a URL)")),
          h("div", { class: "row" }, accept, decline, cancel)));
        if (!safe) accept.disabled = true;
        return;
      }
      const errors = h("p", { class: "field-error", "data-testid": "elicitation-errors", "aria-live": "polite" });
      const form = schemaForm(params?.requestedSchema ?? { type: "object", properties: {} }, { testid: "elicitation-field", onInput: () => check() });
      const accept = h("button", { type: "button", id: "elicitation-accept", "data-testid": "elicitation-accept", class: "primary", onclick: () => { if (check()) answer("accept", form.value())(); } }, "Accept");
      function check() {
        const e = form.errors();
        errors.textContent = e.join("; ");
        accept.disabled = e.length > 0;
        return e.length === 0;
      }
      replace(card, h("div", { "data-testid": "elicitation-request", "data-mode": "form", class: "stack" },
        h("p", {}, String(params?.message ?? "")), form.el, errors, h("div", { class: "row" }, accept, decline, cancel)));
      check();
    });
  }

  return {
    handlers: {
      "roots/list": async () => ({ roots: roots.map((r) => ({ ...r })) }),
      "sampling/createMessage": sampling,
      "elicitation/create": elicitation,
    },
    /** What the connection declared: decides what the panes may do. */
    declare(caps) { declared = { ...declared, ...caps }; checkRoots(); },
    /** The server withdrew a request: its card goes. */
    cancelled(requestId, reason) {
      const p = pending.get(JSON.stringify(requestId));
      if (p) { p.settle(new RequestError(-32800, `cancelled by the server${reason ? `: ${reason}` : ""}`)); event(`request ${requestId} withdrawn by the server`, "warn"); }
    },
    reset() {
      for (const p of [...pending.values()]) p.settle(new RequestError(-32603, "the connection closed"));
      pending.clear();
      replace(samplingList); replace(elicitationList);
      renderIdle();
    },
    roots: () => roots,
  };
}
