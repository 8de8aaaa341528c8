// terminal/* requests, registered only when the client declared the terminal capability (when
// it did not, the library refuses them). A browser page cannot run commands, so the terminal is
// emulated: the command is echoed, never executed.
import { RequestError } from "../lib/request-error.js";

export const TERMINAL_METHODS = ["terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release"];

export function createTerminalHandlers({ log = () => {} } = {}) {
  const terminals = new Map();
  let next = 1;

  const find = (params) => {
    const t = terminals.get(params?.terminalId);
    if (!t) throw new RequestError(-32602, `unknown terminalId ${params?.terminalId}`, { terminalId: params?.terminalId });
    return t;
  };

  const handlers = {
    "terminal/create": (p) => {
      const terminalId = `term_${next++}`;
      const line = [p.command, ...(p.args ?? [])].join(" ");
      terminals.set(terminalId, {
        output: `$ ${line}\n(the agentwire playground does not execute commands; this terminal is emulated)\n`,
        exitStatus: { exitCode: 0, signal: null },
      });
      log(`terminal ${terminalId}: ${line}`);
      return { terminalId };
    },
    "terminal/output": (p) => { const t = find(p); return { output: t.output, truncated: false, exitStatus: t.exitStatus }; },
    "terminal/wait_for_exit": (p) => ({ ...find(p).exitStatus }),
    "terminal/kill": (p) => { find(p).exitStatus = { exitCode: null, signal: "SIGTERM" }; return {}; },
    "terminal/release": (p) => { find(p); terminals.delete(p.terminalId); return {}; },
  };

  return Object.fromEntries(TERMINAL_METHODS.map((method) => [method, async (params) => handlers[method](params ?? {})]));
}
