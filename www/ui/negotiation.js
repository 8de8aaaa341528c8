// Negotiated version and why: what was offered, what was sent, what came back.
import { h, replace } from "../lib/dom.js";

const fmt = (v) => (v === undefined || v === null ? "—" : JSON.stringify(v));

export function createNegotiation(root) {
  const output = h("output", { id: "negotiated-version", "data-testid": "negotiated-version", class: "version-output" }, "—");
  const detail = h("dl", { id: "negotiation-detail", class: "kv" });
  const peer = h("p", { id: "peer-info", class: "muted" });
  replace(root, h("div", { class: "row baseline" }, h("span", { class: "field-label" }, "Negotiated version"), output), detail, peer);

  function rows(pairs) {
    replace(detail, pairs.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  }

  function result({ offered, answered, chosen, peerInfo }) {
    output.textContent = String(chosen);
    output.className = "version-output ok";
    const sent = offered[0];
    const why = answered === sent
      ? `The peer supports ${fmt(sent)}, the version we sent, and echoed it.`
      : `The peer does not support ${fmt(sent)} and answered its own ${fmt(answered)}, which we also offered, so we use it.`;
    rows([["offered", offered.map(fmt).join(", ")], ["sent", fmt(sent)], ["answered", fmt(answered)], ["why", why]]);
    peer.textContent = peerInfo ? `Peer: ${peerInfo.title ?? peerInfo.name ?? "?"} ${peerInfo.version ?? ""}` : "Peer sent no implementation info.";
  }

  function failure({ offered, answered, error }) {
    output.textContent = "failed";
    output.className = "version-output bad";
    rows([["offered", offered.map(fmt).join(", ")], ["sent", fmt(offered[0])], ["answered", fmt(answered)],
      ["why", error?.message ?? "negotiation failed"]]);
    peer.textContent = "";
  }

  function reset() { output.textContent = "—"; output.className = "version-output"; detail.replaceChildren(); peer.textContent = ""; }

  return { result, failure, reset };
}
