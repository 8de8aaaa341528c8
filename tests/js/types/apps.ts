// agentwire/apps as a TypeScript page uses it (tests/js/apps-types.test.mjs compiles it with tsc --strict).
import init, { McpClient } from "agentwire";
import { renderApp, appsCapability, modelTools, toolResourceUri, buildCsp, type AppTool, type BridgeFrame } from "agentwire/apps";
async function main(container: HTMLElement) {
  await init();
  const client = await McpClient.connect("http://127.0.0.1:1/mcp/x", { capabilities: { ...appsCapability() } });
  const { tools } = await client.listTools();
  const list = tools as AppTool[];
  const shown: AppTool[] = modelTools(list);
  const tool = list.find((t) => toolResourceUri(t) !== undefined)!;
  const frames: BridgeFrame[] = [];
  const view = await renderApp(client, tool, { sandbox: "http://127.0.0.1:2/sandbox.html", container, onFrame: (f) => frames.push(f), onMessage: () => ({}) });
  await view.ready;
  view.toolInput({ a: 1 });
  const r = await view.run({});
  view.setHostContext({ theme: "dark" });
  await view.teardown();
  const csp: string = buildCsp({ connectDomains: ["https://x"] });
  // @ts-expect-error sandbox is required
  await renderApp(client, tool, {});
  return [shown, r, csp];
}
void main;
