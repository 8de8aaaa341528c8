// The playground's OAuth callback page: the authorization server sends the sign-in popup here;
// the answer goes to the waiting playground (same origin) and the window closes.
import { completeAuthorization } from "/pkg/auth.js";

const { ok, error } = completeAuthorization();
document.getElementById("oauth-result").textContent = ok ? "Signed in: this window may be closed." : `Sign-in failed: ${error ?? "no code came back"}.`;
