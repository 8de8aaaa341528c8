// Compiled by tests/js/types.test.mjs with `tsc --strict`: the ACP types narrow under `switch`,
// method names are checked (`_`-prefixed names are extensions), and handlers get a signal.
// Each `@ts-expect-error` line must stay an error.
import { AcpClient, AcpAgent, type acp } from "agentwire";

export async function client(url: string): Promise<string[]> {
  const seen: string[] = [];
  const conn = await AcpClient.connect(url, { clientInfo: { name: "ide", version: "1" }, protocolVersions: [1], strict: false });
  conn.onUpdate((_session, u) => {
    switch (u.sessionUpdate) {
      case "tool_call": {
        const id: string = u.toolCallId;
        const title: string = u.title;
        const where: number | null | undefined = u.locations?.[0]?.line;
        seen.push(id, title, String(where));
        break;
      }
      case "tool_call_update":
        seen.push(u.toolCallId);
        break;
      case "agent_message_chunk": {
        const block: acp.ContentBlock = u.content;
        switch (block.type) {
          case "text": seen.push(block.text); break;
          case "image": seen.push(block.mimeType); break;
          case "resource_link": seen.push(block.uri); break;
          default: break;
        }
        break;
      }
      case "plan": {
        const priority: "high" | "medium" | "low" = u.entries[0].priority;
        seen.push(priority);
        break;
      }
      case "usage_update": {
        const used: number = u.used;
        seen.push(String(used));
        break;
      }
      case "session_info_update": {
        const title: string | null | undefined = u.title;
        seen.push(title ?? "");
        break;
      }
      case "state_update": {
        const state: string = u.state;
        seen.push(state);
        break;
      }
      default:
        break;
    }
  });
  conn.onRequest("fs/read_text_file", async ({ path, line }, { signal, method }) => {
    signal.throwIfAborted();
    const m: "fs/read_text_file" = method;
    return { content: `${m} ${path} ${line ?? 0}` };
  });
  conn.onRequest("session/request_permission", (p, { signal }) =>
    new Promise<acp.RequestPermissionResponse>((resolve) => signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } })) ?? p));
  // An answer written inline keeps its literal types (no annotation needed).
  conn.onRequest("session/request_permission", (p) => ({ outcome: { outcome: "selected", optionId: p.options[0].optionId } }));
  conn.onRequest("_acme/open_file", (params, ctx) => ({ opened: params, by: ctx.method }));
  // @ts-expect-error a misspelt method
  conn.onRequest("fs/read_txt_file", () => ({ content: "" }));
  // @ts-expect-error a method the client sends, never serves
  conn.onRequest("session/prompt", () => ({ stopReason: "end_turn" }));
  // @ts-expect-error the answer of a permission request has an outcome
  conn.onRequest("session/request_permission", () => ({ optionId: "x" }));

  await conn.initialize();
  const listed: acp.ListSessionsResponse = await conn.listSessions({ cwd: "/w" });
  const first: string | undefined = listed.sessions[0]?.sessionId;
  const again = await conn.request("session/list", {});
  seen.push(first ?? "", String(again.sessions.length));
  const stats = await conn.request<{ n: number }>("_acme/stats", {});
  seen.push(String(stats.n));
  // @ts-expect-error a misspelt method
  await conn.request("session/lst", {});
  // @ts-expect-error session/close takes a sessionId
  await conn.request("session/close", { session: "s1" });
  // @ts-expect-error a method the agent sends
  await conn.request("fs/read_text_file", { sessionId: "s", path: "/a" });
  await conn.closeSession("s1");
  await conn.deleteSession("s1");
  await conn.logout();
  await conn.setConfigOption({ sessionId: "s1", configId: "model", value: "deep" });
  const session = await conn.newSession({ cwd: "/w", mcpServers: [] });
  const set: acp.SetSessionConfigOptionResponse = await session.setConfigOption("model", "fast");
  seen.push(String(set.configOptions.length));
  await conn.notify("session/cancel", { sessionId: "s1" });
  // @ts-expect-error not a notification of the client
  await conn.notify("session/canel", { sessionId: "s1" });
  return seen;
}

export async function agent(url: string): Promise<void> {
  const conn = await AcpAgent.connect(url, { agentInfo: { name: "agent", version: "1" }, protocolVersions: [1] });
  conn.onRequest("session/new", ({ cwd }) => ({ sessionId: cwd }));
  conn.onRequest("session/prompt", async ({ sessionId, prompt }, { signal }) => {
    await conn.sendUpdate(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: String(prompt.length) } });
    return { stopReason: signal.aborted ? "cancelled" : "end_turn" };
  });
  // @ts-expect-error the agent does not serve fs requests
  conn.onRequest("fs/read_text_file", () => ({ content: "" }));
  const permission = await conn.requestPermission({ sessionId: "s", toolCall: { toolCallId: "t" }, options: [] });
  if (permission.outcome.outcome === "selected") {
    const option: string = permission.outcome.optionId;
    void option;
  }
}

export function warnings(conn: Awaited<ReturnType<typeof AcpClient.connect>>): void {
  conn.onWarning((w) => {
    const code: string = w.code;
    const message: string = w.message;
    void code, message;
  });
}
