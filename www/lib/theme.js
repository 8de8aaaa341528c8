// Light / dark: follows prefers-color-scheme until the user picks one; the choice is kept.
const KEY = "agentwire-theme";
const ORDER = ["auto", "light", "dark"];

export function initTheme(button) {
  let mode = "auto";
  try { mode = localStorage.getItem(KEY) ?? "auto"; } catch { /* storage may be blocked */ }
  const apply = () => {
    if (mode === "auto") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = mode;
    button.textContent = mode === "auto" ? "◐ auto" : mode === "light" ? "☀ light" : "☾ dark";
    button.setAttribute("aria-label", `Color theme: ${mode}. Click to change.`);
  };
  button.addEventListener("click", () => {
    mode = ORDER[(ORDER.indexOf(mode) + 1) % ORDER.length];
    try { localStorage.setItem(KEY, mode); } catch { /* ignore */ }
    apply();
  });
  apply();
}
