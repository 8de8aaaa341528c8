// Debian's headless Chromium as every browser benchmark launches it (never a downloaded one).
import { chromium } from "playwright-core";

const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

/** Launches it, with `extraArgs` after the common ones. */
export const launchChromium = (extraArgs = []) => chromium.launch({ executablePath: "/usr/bin/chromium", args: [...ARGS, ...extraArgs] });
