// OAuth 2.1 for remote MCP servers: the flow and the ready-made browser provider (docs/auth.md).
import type { OAuthProvider, OAuthStep, OAuthClient, OAuthTokens, ProtocolError } from "./index.js";
export type { OAuthProvider, OAuthStep, OAuthClient, OAuthTokens, OAuthPending, OAuthAnswer } from "./index.js";

/** A Storage-like place for tokens and clients (`sessionStorage`, `localStorage`, or your own). */
export interface AuthStorage { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void }
export interface StoredAuthOptions {
  /** Where the authorization server sends the user back; registered with it. */
  redirectUrl?: string | URL;
  /** A pre-registered client (used before any other identity). */
  clientId?: string;
  clientSecret?: string;
  /** An HTTPS URL serving the client's metadata, used as `client_id` where the server takes it. */
  clientMetadataUrl?: string | URL;
  /** Fields over the defaults sent for Dynamic Client Registration (RFC 7591). */
  clientMetadata?: Record<string, unknown>;
  onStep?: (step: OAuthStep) => void;
  /** The keys' prefix in the storage (`agentwire.oauth.` by default). */
  prefix?: string;
}
export interface BrowserAuthOptions extends StoredAuthOptions {
  /** `popup` (default): a window whose page calls `completeAuthorization()`; `redirect`: the page itself leaves. */
  mode?: "popup" | "redirect";
  /** `sessionStorage` by default. */
  storage?: AuthStorage;
  /** How long a popup sign-in may take (5 minutes by default). */
  timeoutMs?: number;
}
export function storedAuth(storage: AuthStorage, options: StoredAuthOptions & { redirectUrl: string | URL }): OAuthProvider;
export function browserAuth(options?: BrowserAuthOptions): OAuthProvider;
/** For the callback page: hands the answer to the waiting page and closes the window. */
export function completeAuthorization(options?: { close?: boolean }): { ok: boolean; error: string | null };
export function memoryStorage(): AuthStorage;
/** A copy with tokens, codes, client secrets and verifiers replaced by "[redacted]". */
export function redact<T>(value: T): T;
/** Runs the flow after a 401/403; resolves with the headers to retry with. */
export function authorizeWith(provider: OAuthProvider, info: { serverUrl: string | URL; wwwAuthenticate?: string | null; status?: number; fetch?: typeof globalThis.fetch }): Promise<{ headers: Record<string, string>; retried(status: number): void }>;
export function authError(step: string, message: string, data?: Record<string, unknown>): ProtocolError;
