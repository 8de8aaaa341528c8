// One replay into the transcript model, run in the page by bench/replay/run.mjs and ab.mjs: an
// `AcpClient` of `mod` (a package's entry, initialized) receives the recorded initialize
// answer, then (timed) every `session/update` line and the load's answer, then `transcript()`.
export function replayOnce(mod, replay, version, sessionId) {
  const client = new mod.AcpClient({ protocolVersions: [version] });
  const hello = client.initialize();
  client.receive(replay.initialize.replace('"id":1', `"id":${hello.id}`));
  const load = client.request("session/load", { sessionId, cwd: "/work/project", mcpServers: [] });
  const answer = replay.response.replace('"id":2', `"id":${load.id}`);
  const t0 = performance.now();
  for (const line of replay.updates) client.receive(line);
  client.receive(answer);
  const t1 = performance.now();
  const transcript = client.transcript(sessionId);
  const t2 = performance.now();
  client.free?.();
  return { receive: t1 - t0, transcript: t2 - t1, total: t2 - t0, entries: transcript.entries };
}
