// OAuth 2.1 for remote MCP servers: the flow and the ready-made browser provider (docs/auth.md).
import type { OAuthProvider, OAuthStep, OAuthClient, OAuthTokens, ProtocolError } from "./index.js";
export type { OAuthProvider, OAuthStep, OAuthClient, OAuthTokens, OAuthPending, OAuthAnswer } from "./index.js";

/** A Storage-like place for tokens and clients (`sessionStorage`, `localStorage`, or your own). */
export interface AuthStorage { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void }
export interface StoredAuthOptions {
  /** Where the authorization server sends the user back; registered with it. */
  redirectUrl?: string | URL;
  /** A pre-registered client (used before any other identity, at its issuer only). */
  clientId?: string;
  clientSecret?: string;
  /**
   * The authorization server (issuer identifier) the pre-registered client belongs to: it is
   * used there only. Without it, the client is pinned to the first issuer it is used at (kept
   * in the storage) and never sent to another.
   */
  issuer?: string | URL;
  /** How long one request of the flow (metadata, registration, token) may take: 30 s by default. */
  requestTimeoutMs?: number;
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
export function authorizeWith(provider: OAuthProvider, info: { serverUrl: string | URL; wwwAuthenticate?: string | null; status?: number; fetch?: typeof globalThis.fetch; timeoutMs?: number }): Promise<{ headers: Record<string, string>; retried(status: number): void }>;
/** One challenge of a `WWW-Authenticate` value (RFC 9110 §11.6.1); `scheme` lower-cased. */
export interface Challenge { scheme: string; params: Record<string, string>; token68?: string }
/** Every challenge of a `WWW-Authenticate` value (one header, or several joined with ", "). */
export function parseChallenges(header: string | null | undefined): Challenge[];
/** The Bearer challenge's parameters only (`scheme` is "" when there is none). */
export function parseWwwAuthenticate(header: string | null | undefined): { scheme: "bearer" | ""; params: Record<string, string> };
/** The server's `error` if it is a well-formed error code (printable, no space or quote, at most 64), else undefined. */
export function errorCode(value: unknown): string | undefined;
/** Bytes read of an answer at most, a token's length at most, and the time one request may take. */
export const limits: { readonly bodyBytes: number; readonly tokenLength: number; readonly timeoutMs: number };
export function authError(step: string, message: string, data?: Record<string, unknown>): ProtocolError;
