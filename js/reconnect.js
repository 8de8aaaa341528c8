// Reconnect and resume for an ACP client (the `reconnect` option of AcpClient.connect). When
// the transport drops, every request and prompt turn still waiting fails at once with a
// CONNECTION_CLOSED error (`data.reconnecting: true`), and calls are refused until the
// connection is back. Then, with growing delays: a new transport to the same URL, a new
// sans-IO session, `initialize`, and each open session resumed:
//
// - v2: `session/resume` with `replayFrom: {type: "start"}` (the agent replays the history);
// - v1: `session/load` where the agent advertises it (it replays the history), else
//   `session/resume` (no replay: what the agent sent while the connection was down is lost,
//   as ACP v1 says, and the session's `replayed` is false in the event).
//
// A replayed update the application already had is not delivered again: the updates it was
// given are remembered per session (their JSON), and the replay is matched against them in
// order; what does not match is new and delivered. Over HTTP the answer to session/load comes
// on the connection's stream and the replay on the session's, so the answer may come first:
// matching goes on past it, for updates equal to the next one remembered, until a new update
// that is not part of the replay comes or the session is quiet for a while. Where the agent does not
// replay, the remembered updates are fed to the new session so that its transcript stays whole.
// Then the `reconnected` event: `{ attempt, sessions: [{ sessionId, method, replayed,
// skipped, delivered, error? }] }`.

import { ProtocolError, codes } from "./errors.js";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** After the answer, a replay that brings nothing for this long is over. */
const QUIET_MS = 300;

/**
 * Options: `attempts` (8), `delayMs` (the first wait; by default and at least `floor`, the
 * core's SSE reconnection floor), `maxDelayMs` (5000; each wait doubles up to it).
 */
export function keepAlive(acp, open, floor, { attempts = 8, delayMs = floor, maxDelayMs = 5000 } = {}) {
  const connection = acp.connection;
  /** sessionId → the JSON of every update the application was given, in order. */
  const seen = new Map();
  /** sessionId → the filter matching its replay against `seen` (reconnect.js's `_skip`). */
  const windows = new Map();
  acp._skip = (ev) => windows.get(ev.sessionId)?.(ev) ?? false;
  acp.onUpdate((sessionId, update) => {
    if (!seen.has(sessionId)) seen.set(sessionId, []);
    seen.get(sessionId).push(JSON.stringify(update));
  });

  connection.survive(async (error) => {
    acp._failTurns(new ProtocolError(codes.CONNECTION_CLOSED,
      `${error.message}; the prompt turn's end was not received (it may go on at the agent: its updates arrive after the reconnection)`,
      { method: "session/prompt", reconnecting: true }));
    let last = error;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await sleep(Math.min(maxDelayMs, Math.max(floor, delayMs * 2 ** (attempt - 1))));
      if (connection.closed) return;
      try {
        const transport = await open();
        connection.reattach(acp.fresh(), transport);
        if (connection.closed) return;
        await initialize(acp);
        const sessions = [];
        windows.clear();
        for (const session of acp._sessions()) sessions.push(await resume(acp, session, seen, windows));
        if (connection.suspended) throw new ProtocolError(codes.CONNECTION_CLOSED, "the connection dropped again while resuming");
        connection.recovered();
        connection.dispatch([{ type: "reconnected", attempt, sessions }]);
        return;
      } catch (e) {
        last = e;
        if (connection.closed) return;
      }
    }
    connection.fail(new ProtocolError(codes.CONNECTION_CLOSED,
      `${error.message}; reconnecting failed after ${attempts} attempts: ${last?.message ?? last}`, { reconnecting: false, attempts }));
  });
}

/** `initialize` on the new transport; rejects when the transport drops meanwhile. */
function initialize(acp) {
  return new Promise((resolve, reject) => {
    const off = acp.onEvent((ev) => {
      if (ev.type !== "disconnected") return;
      off();
      reject(ProtocolError.from(ev.error));
    });
    acp.initialize().then((r) => { off(); resolve(r); }, (e) => { off(); reject(e); });
  });
}

/**
 * Matches a session's replay against the updates the app had (`had`, JSON texts): true for
 * one to skip. A replayed update may match further on (an agent may leave some out); one that
 * is not marked replay (its answer came first) only the next remembered one.
 */
function replayWindow(had, report) {
  let next = 0;
  // Open until a live update the app did not have comes, or the replay is quiet: every
  // remembered update matched is not the replay's end (it goes on with what the app missed).
  let open = true;
  let touched = Date.now();
  const skip = (ev) => {
    if (!open) return false;
    touched = Date.now();
    const key = JSON.stringify(ev.update);
    const at = ev.replay ? had.indexOf(key, next) : had[next] === key ? next : -1;
    if (at < 0) {
      report.delivered++;
      // Live and new: whatever replay there was is over.
      if (!ev.replay) open = false;
      return false;
    }
    next = at + 1;
    report.skipped++;
    return true;
  };
  /** Resolves once the replay is matched, or quiet. */
  skip.settled = async () => {
    while (open && Date.now() - touched < QUIET_MS) await sleep(20);
    open = false;
  };
  return skip;
}

/** Resumes one session on the new connection; its outcome for the `reconnected` event. */
async function resume(acp, session, seen, windows) {
  const { id: sessionId } = session;
  const enabled = (m) => acp.methods().find((r) => r.method === m)?.enabled === true;
  const v2 = acp.state.protocolVersion >= 2;
  const params = { sessionId, ...(session.setup ?? {}) };
  const report = { sessionId, skipped: 0, delivered: 0 };
  let method;
  let replayed;
  if (v2 && enabled("session/resume")) [method, replayed] = ["session/resume", true];
  else if (enabled("session/load")) [method, replayed] = ["session/load", true];
  else if (enabled("session/resume")) [method, replayed] = ["session/resume", false];
  else return { ...report, error: "the agent can neither load nor resume sessions" };

  // The replay, matched in order against what the application already has.
  const had = seen.get(sessionId) ?? [];
  const window = replayWindow(had, report);
  windows.set(sessionId, window);
  try {
    const ask = (p) => acp.request(method, p);
    let answer;
    try {
      const pending = ask(replayed && v2 ? { ...params, replayFrom: { type: "start" } } : params);
      if (!replayed) restore(acp, sessionId, had);
      answer = await pending;
    } catch (e) {
      // An agent that cannot replay from the start resumes without replay.
      if (!(v2 && replayed && e?.code === codes.INVALID_PARAMS)) throw e;
      replayed = false;
      const pending = ask(params);
      restore(acp, sessionId, had);
      answer = await pending;
    }
    if (answer && typeof answer === "object") session.result = answer;
    if (replayed) await window.settled();
    return { ...report, method, replayed };
  } catch (e) {
    return { ...report, method, replayed, error: e?.message ?? String(e) };
  }
}

/** Feeds the new session the updates the application had, as a replay: its transcript stays whole. */
function restore(acp, sessionId, had) {
  const { connection } = acp;
  for (const update of had) {
    const text = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":${update}}}`;
    connection.dispatch(connection.session.receive(text));
  }
}
