// What each method is for and where the specification describes it (ACP and MCP), what gates
// an MCP method (the library's MethodStatus carries ACP gates but not MCP's), and how each
// capability of ACP's unified model is spelled on the wire per version. Kept in step with
// src/acp/methods.rs, src/acp/capabilities.rs and src/mcp/methods.rs.

const ACP_DOCS = "https://agentclientprotocol.com/protocol/";
const mcpDocs = (version) => `https://modelcontextprotocol.io/specification/${version && /^\d{4}-\d{2}-\d{2}$/.test(version) ? version : "2025-11-25"}/`;

/** ACP: method → [spec section under /protocol/, one-line purpose]. */
const ACP = {
  "initialize": ["initialization", "Agree on a protocol version and exchange capabilities and implementation info."],
  "authenticate": ["initialization#authentication", "Sign in with one of the auth methods the agent listed (v1)."],
  "logout": ["initialization#authentication", "Sign out of the agent (v1, auth.logout)."],
  "auth/login": ["initialization#authentication", "Sign in with one of the auth methods the agent listed (v2)."],
  "auth/logout": ["initialization#authentication", "Sign out of the agent (v2)."],
  "auth/status": ["initialization#authentication", "Ask whether the client is signed in (unstable)."],
  "auth/status_update": ["initialization#authentication", "The agent reports a change of sign-in state (unstable)."],
  "session/new": ["session-setup#creating-a-session", "Create a conversation in a working directory, with the MCP servers the agent should use."],
  "session/load": ["session-setup#loading-sessions", "Resume an earlier conversation: the agent replays its history as session/update."],
  "session/resume": ["session-setup", "Resume an earlier conversation without replaying its history."],
  "session/list": ["session-setup", "List the sessions the agent keeps."],
  "session/delete": ["session-setup", "Delete a stored session."],
  "session/close": ["session-setup", "Close a session and free what the agent holds for it."],
  "session/fork": ["session-setup", "Start a new session from a copy of an existing one (unstable)."],
  "session/archive": ["session-setup", "Archive a session (unstable)."],
  "session/unarchive": ["session-setup", "Bring back an archived session (unstable)."],
  "session/status": ["session-setup", "Ask for a session's state (unstable)."],
  "session/set_title": ["session-setup", "Rename a session (unstable)."],
  "session/set_mode": ["session-modes", "Switch the session to another of the agent's modes (ask, code, …)."],
  "session/set_config_option": ["session-config-options", "Change one of the session's configuration options."],
  "session/prompt": ["prompt-turn", "Send the user's message: one prompt turn, answered with its stop reason."],
  "session/cancel": ["prompt-turn#cancellation", "Stop the running prompt turn; the agent ends it with stopReason cancelled."],
  "session/update": ["prompt-turn#3-agent-reports-output", "The agent streams the turn: message chunks, thoughts, tool calls, plans, state."],
  "session/request_permission": ["tool-calls#requesting-permission", "The agent asks the user to allow a tool call; the answer is one of its options."],
  "tool_call/cancel": ["tool-calls", "Stop one running tool call (v2)."],
  "terminal/cancel": ["terminals", "Stop a command the agent runs (v2)."],
  "fs/read_text_file": ["file-system#reading-files", "The agent reads a file as the editor sees it, unsaved changes included."],
  "fs/write_text_file": ["file-system#writing-files", "The agent writes a file through the editor."],
  "terminal/create": ["terminals#executing-commands", "The agent starts a command in a terminal the client runs."],
  "terminal/output": ["terminals#getting-output", "The agent reads a terminal's output so far."],
  "terminal/release": ["terminals#releasing-terminals", "The agent is done with a terminal; the client frees it."],
  "terminal/wait_for_exit": ["terminals#waiting-for-exit", "The agent waits until the command exits."],
  "terminal/kill": ["terminals#killing-commands", "The agent stops a command and keeps its terminal."],
  "elicitation/create": ["elicitation", "The agent asks the user for structured input (a form) or to visit a URL."],
  "elicitation/complete": ["elicitation", "The agent says a URL elicitation is finished."],
  "$/cancel_request": ["cancellation", "Either side withdraws a request it sent."],
  "mcp/connect": ["extensibility", "Open an MCP connection over ACP (unstable)."],
  "mcp/disconnect": ["extensibility", "Close an MCP connection over ACP (unstable)."],
  "mcp/message": ["extensibility", "Carry an MCP message over ACP (unstable)."],
};

/** MCP: method → [spec section under /specification/VERSION/, one-line purpose]. */
const MCP = {
  "initialize": ["basic/lifecycle#initialization", "Agree on a protocol version and exchange capabilities and implementation info."],
  "notifications/initialized": ["basic/lifecycle#initialization", "The client says initialization is done; normal operation starts."],
  "server/discover": ["basic/lifecycle", "Ask a stateless server for its versions and capabilities (2026)."],
  "ping": ["basic/utilities/ping", "Check that the other side is alive; the answer is an empty result."],
  "notifications/cancelled": ["basic/utilities/cancellation", "Withdraw a request that is still running."],
  "notifications/progress": ["basic/utilities/progress", "Progress of a long request that carried a progressToken."],
  "resources/list": ["server/resources#listing-resources", "List the resources the server offers (paginated)."],
  "resources/templates/list": ["server/resources#resource-templates", "List URI templates for parameterized resources."],
  "resources/read": ["server/resources#reading-resources", "Read one resource's contents (text or base64 blob)."],
  "resources/subscribe": ["server/resources#subscriptions", "Ask to be told when a resource changes."],
  "resources/unsubscribe": ["server/resources#subscriptions", "Stop hearing about a resource's changes."],
  "notifications/resources/list_changed": ["server/resources#list-changed-notification", "The list of resources changed; list them again."],
  "notifications/resources/updated": ["server/resources#subscriptions", "A subscribed resource changed; read it again."],
  "prompts/list": ["server/prompts#listing-prompts", "List the prompt templates the server offers."],
  "prompts/get": ["server/prompts#getting-a-prompt", "Fill a prompt template with arguments; the answer is messages."],
  "notifications/prompts/list_changed": ["server/prompts#list-changed-notification", "The list of prompts changed; list them again."],
  "tools/list": ["server/tools#listing-tools", "List the tools the server offers, each with its input schema."],
  "tools/call": ["server/tools#calling-tools", "Call a tool with arguments; the result is content (and structuredContent)."],
  "notifications/tools/list_changed": ["server/tools#list-changed-notification", "The list of tools changed; list them again."],
  "logging/setLevel": ["server/utilities/logging#setting-log-level", "Choose the least severe log level the server sends."],
  "notifications/message": ["server/utilities/logging#log-message-notifications", "A log message from the server."],
  "completion/complete": ["server/utilities/completion", "Suggestions for a prompt's or resource template's argument as the user types."],
  "sampling/createMessage": ["client/sampling", "The server asks the client's model for a completion; the user may review it."],
  "roots/list": ["client/roots", "The server asks which directories or files (roots) it may work in."],
  "notifications/roots/list_changed": ["client/roots#root-list-changes", "The client's roots changed; the server asks again."],
  "elicitation/create": ["client/elicitation", "The server asks the user for input: a form from a schema, or a URL to visit."],
  "notifications/elicitation/complete": ["client/elicitation", "A URL elicitation is finished."],
  "tasks/get": ["basic/utilities/tasks", "Ask for a task's state."],
  "tasks/result": ["basic/utilities/tasks", "Wait for a task's result."],
  "tasks/list": ["basic/utilities/tasks", "List the tasks."],
  "tasks/cancel": ["basic/utilities/tasks", "Cancel a task."],
  "notifications/tasks/status": ["basic/utilities/tasks", "A task's state changed."],
  "subscriptions/listen": ["basic/lifecycle", "Open a stream for the server's notifications (2026)."],
  "notifications/subscriptions/acknowledged": ["basic/lifecycle", "The server acknowledges a subscription (2026)."],
};

/** { url, purpose } for a method, or null for an extension or an unknown method. */
export function methodSpec(protocol, method, version) {
  const row = (protocol === "mcp" ? MCP : ACP)[method];
  if (!row) return null;
  return { url: (protocol === "mcp" ? mcpDocs(version) : ACP_DOCS) + row[0], purpose: row[1] };
}

/**
 * MCP: the capability a method needs, as `{ side, path }` (side: who advertises it), by the
 * method and the way it goes. From src/mcp/methods.rs; `elicitation/create` needs
 * `elicitation.form` or `elicitation.url` by its mode.
 */
const MCP_GATES = {
  "clientToServer resources/list": ["server", "resources"],
  "clientToServer resources/templates/list": ["server", "resources"],
  "clientToServer resources/read": ["server", "resources"],
  "clientToServer resources/subscribe": ["server", "resources.subscribe"],
  "clientToServer resources/unsubscribe": ["server", "resources.subscribe"],
  "serverToClient notifications/resources/list_changed": ["server", "resources.listChanged"],
  "serverToClient notifications/resources/updated": ["server", "resources.subscribe"],
  "clientToServer prompts/list": ["server", "prompts"],
  "clientToServer prompts/get": ["server", "prompts"],
  "serverToClient notifications/prompts/list_changed": ["server", "prompts.listChanged"],
  "clientToServer tools/list": ["server", "tools"],
  "clientToServer tools/call": ["server", "tools"],
  "serverToClient notifications/tools/list_changed": ["server", "tools.listChanged"],
  "clientToServer logging/setLevel": ["server", "logging"],
  "serverToClient notifications/message": ["server", "logging"],
  "clientToServer completion/complete": ["server", "completions"],
  "serverToClient sampling/createMessage": ["client", "sampling"],
  "serverToClient roots/list": ["client", "roots"],
  "clientToServer notifications/roots/list_changed": ["client", "roots.listChanged"],
  "serverToClient elicitation/create": ["client", ["elicitation.form", "elicitation.url", "elicitation"]],
  "serverToClient notifications/elicitation/complete": ["client", "elicitation.url"],
  "clientToServer tasks/get": ["server", "tasks"],
  "clientToServer tasks/result": ["server", "tasks"],
  "clientToServer tasks/list": ["server", "tasks.list"],
  "clientToServer tasks/cancel": ["server", "tasks.cancel"],
  "serverToClient notifications/tasks/status": ["server", "tasks"],
  "serverToClient tasks/get": ["client", "tasks"],
  "serverToClient tasks/result": ["client", "tasks"],
  "serverToClient tasks/list": ["client", "tasks.list"],
  "serverToClient tasks/cancel": ["client", "tasks.cancel"],
  "clientToServer notifications/tasks/status": ["client", "tasks"],
};

/**
 * The capability names (model names) a method row of `methods()` needs, and which side
 * advertises them: "client" or "peer" from the page's point of view (the page is the client).
 * ACP rows carry their gate; MCP's come from the table above. [] when nothing gates it.
 */
export function methodGate(protocol, m) {
  if (protocol === "acp") {
    const names = m.gate?.name === undefined ? [] : [m.gate.name].flat();
    if (!names.length) return { side: null, names };
    // A flag of the side that serves the method: the agent serves clientToAgent.
    return { side: m.direction === "agentToClient" ? "client" : "peer", names };
  }
  const row = MCP_GATES[`${m.direction} ${m.method}`];
  if (!row) return { side: null, names: [] };
  return { side: row[0] === "client" ? "client" : "peer", names: [row[1]].flat() };
}

/**
 * ACP: each flag of the unified model and its wire spelling: v1 and v2 paths (under
 * clientCapabilities / agentCapabilities in v1, capabilities in v2), "always" (not spelled,
 * always supported), "implied:NAME" (follows another flag) or null (the version lacks it).
 */
const ACP_WIRE = {
  client: {
    "fs.readTextFile": ["fs.readTextFile", null],
    "fs.writeTextFile": ["fs.writeTextFile", null],
    "terminal": ["terminal", null],
    "auth.terminal": ["auth.terminal", "auth.terminal"],
    "elicitation.form": ["elicitation.form", "elicitation.form"],
    "elicitation.url": ["elicitation.url", "elicitation.url"],
  },
  peer: {
    "session.new": ["always", "session"],
    "session.load": ["loadSession", "session.load"],
    "session.list": ["sessionCapabilities.list", "implied:session.new"],
    "session.delete": ["sessionCapabilities.delete", "session.delete"],
    "session.additionalDirectories": ["sessionCapabilities.additionalDirectories", "session.additionalDirectories"],
    "session.resume": ["sessionCapabilities.resume", "implied:session.new"],
    "session.close": ["sessionCapabilities.close", "implied:session.new"],
    "session.fork": ["sessionCapabilities.fork", "session.fork"],
    "prompt.image": ["promptCapabilities.image", "session.prompt.image"],
    "prompt.audio": ["promptCapabilities.audio", "session.prompt.audio"],
    "prompt.embeddedContext": ["promptCapabilities.embeddedContext", "session.prompt.embeddedContext"],
    "mcp.stdio": ["always", "session.mcp.stdio"],
    "mcp.http": ["mcpCapabilities.http", "session.mcp.http"],
    "mcp.sse": ["mcpCapabilities.sse", null],
    "mcp.acp": ["mcpCapabilities.acp", "session.mcp.acp"],
    "auth.logout": ["auth.logout", "auth.logout"],
  },
};

/** The flags of ACP's model for one side ("client" or "peer"), in the library's order. */
export const acpFlags = (side) => Object.keys(ACP_WIRE[side]);

/**
 * How a capability is written on the wire in the negotiated version: { text, defined }.
 * ACP: the path under the initialize message's capabilities object; MCP: the same dotted path
 * under `capabilities` (MCP's model uses the wire names).
 */
export function wireName(protocol, side, name, version) {
  if (protocol === "mcp") return { text: `capabilities.${name}`, defined: true };
  const row = ACP_WIRE[side]?.[name];
  if (!row) return { text: name, defined: true };
  const v2 = Number(version) >= 2;
  const spelled = row[v2 ? 1 : 0];
  const root = v2 ? "capabilities" : side === "client" ? "clientCapabilities" : "agentCapabilities";
  if (spelled === null) return { text: `not in v${v2 ? 2 : 1}`, defined: false };
  if (spelled === "always") return { text: `not spelled: always in v${v2 ? 2 : 1}`, defined: true };
  if (spelled.startsWith("implied:")) return { text: `implied by ${wireName(protocol, side, spelled.slice(8), version).text}`, defined: true };
  return { text: `${root}.${spelled}`, defined: true };
}

/** What a capability allows besides methods: content, params, transports. */
const NOTES = {
  acp: {
    "prompt.image": "image blocks in session/prompt",
    "prompt.audio": "audio blocks in session/prompt",
    "prompt.embeddedContext": "resource blocks in session/prompt",
    "mcp.stdio": "stdio MCP servers in session/new",
    "mcp.http": "http MCP servers in session/new",
    "mcp.sse": "sse MCP servers in session/new",
    "mcp.acp": "MCP servers over ACP in session/new",
    "session.additionalDirectories": "additionalDirectories in session/new",
    "auth.terminal": "terminal auth methods",
  },
  mcp: {
    "sampling.context": "includeContext in sampling/createMessage",
    "sampling.tools": "tools in sampling/createMessage",
    "tasks.requests.tools.call": "tools/call as a task",
    "tasks.requests.sampling.createMessage": "sampling/createMessage as a task",
    "tasks.requests.elicitation.create": "elicitation/create as a task",
    "experimental": "non-standard features",
  },
};

/** What a capability allows that is not a method of its own, or undefined. */
export const capabilityNote = (protocol, name) => NOTES[protocol]?.[name];
