// terminal/* requests. A browser page cannot run commands, so when the client declared the
// terminal capability the page emulates one (the command is echoed, never executed); when it
// did not, the requests are refused with "method not found".
import { FsError } from "./file-tree.js";

export const TERMINAL_METHODS = ["terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release"];

export function createTerminalHandlers({ declared, log = () => {} }) {
  const terminals = new Map();
  let next = 1;

  const find = (params) => {
    const t = terminals.get(params?.terminalId);
    if (!t) throw new FsError(-32602, `unknown terminalId ${params?.terminalId}`, { terminalId: params?.terminalId });
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

  return Object.fromEntries(TERMINAL_METHODS.map((method) => [method, async (params) => {
    if (!declared()) throw new FsError(-32601, `Method not found: ${method} (the client did not declare the terminal capability)`, { method });
    return handlers[method](params ?? {});
  }]));
}
