// OAuth for remote MCP servers in Node: a loopback redirect listener (docs/auth.md).
import type { OAuthProvider, OAuthAnswer } from "./index.js";
import type { AuthStorage, StoredAuthOptions } from "./auth.js";

export interface LoopbackAuthOptions extends Omit<StoredAuthOptions, "redirectUrl"> {
  /** 0 (default): an ephemeral port. */
  port?: number;
  host?: string;
  path?: string;
  /**
   * Sends the user to the URL (printed on stderr by default); may resolve with the code itself,
   * or the answer (`iss` where the authorization server sends one, RFC 9207).
   */
  open?: (url: string) => void | string | OAuthAnswer | Promise<void | string | OAuthAnswer>;
  storage?: AuthStorage;
  timeoutMs?: number;
}
export function loopbackAuth(options?: LoopbackAuthOptions): Promise<OAuthProvider & { redirectUrl: string; close(): Promise<void> }>;
