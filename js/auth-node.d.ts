// OAuth for remote MCP servers in Node: a loopback redirect listener (docs/auth.md).
import type { OAuthProvider } from "./index.js";
import type { AuthStorage, StoredAuthOptions } from "./auth.js";

export interface LoopbackAuthOptions extends Omit<StoredAuthOptions, "redirectUrl"> {
  /** 0 (default): an ephemeral port. */
  port?: number;
  host?: string;
  path?: string;
  /** Sends the user to the URL (printed on stderr by default); may resolve with the code itself. */
  open?: (url: string) => void | string | { code: string; state?: string } | Promise<void | string | { code: string; state?: string }>;
  storage?: AuthStorage;
  timeoutMs?: number;
}
export function loopbackAuth(options?: LoopbackAuthOptions): Promise<OAuthProvider & { redirectUrl: string; close(): Promise<void> }>;
