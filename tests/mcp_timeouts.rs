#![cfg(not(target_arch = "wasm32"))]
//! Deadlines with a fake clock: expiry, progress resets under a cap, initialize never
//! cancelled, cancellation both ways, closing with requests pending.

mod mcp_support;

use agentwire::jsonrpc::{codes, Id};
use agentwire::mcp::{McpClient, RequestOptions};
use mcp_support::*;
use serde_json::{json, Value};

fn ready() -> Pair {
    let p = Pair::connect(
        json!({ "protocolVersions": ["2025-11-25"], "era": "handshake", "requestTimeoutMs": 1000 }),
        json!({ "protocolVersions": ["2025-11-25"], "capabilities": { "tools": {} } }),
    );
    assert!(p.client.is_ready());
    p
}

#[test]
fn an_expired_request_times_out_and_is_cancelled_at_the_peer() {
    let mut p = ready();
    let out = p.client.list_tools(None, 100).unwrap();
    assert_eq!(p.client.next_deadline(), Some(1100));
    assert!(p.client.tick(1099).is_empty());
    let events = p.client.tick(1100);
    let timeout = &of_type(&events, "timeout")[0];
    assert_eq!(timeout["method"], "tools/list");
    assert_eq!(timeout["error"]["code"], codes::TIMEOUT);
    let cancel = &sent(&events)[0];
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(
        cancel["params"]["requestId"],
        out.id.clone().unwrap().to_value()
    );
    // A late answer is reported, not delivered as a response.
    let late =
        json!({ "jsonrpc": "2.0", "id": out.id.clone().unwrap(), "result": { "tools": [] } });
    let events = p.client.receive(&late.to_string(), 1200);
    assert!(of_type(&events, "response").is_empty());
    let stray = &of_type(&events, "stray")[0];
    assert_eq!(
        (&stray["id"], &stray["alreadyAnswered"]),
        (&out.id.unwrap().to_value(), &json!(true))
    );
}

#[test]
fn progress_pushes_the_deadline_out_but_never_past_the_cap() {
    let mut p = ready();
    let options = RequestOptions {
        timeout_ms: Some(1000),
        reset_on_progress: true,
        max_total_ms: Some(2500),
    };
    let out = p.client.call_tool("slow", None, options, 0).unwrap();
    let req: Value = serde_json::from_str(&out.text).unwrap();
    let token = req["params"]["_meta"]["progressToken"].clone();
    assert_eq!(token, out.id.clone().unwrap().to_value());
    let progress = |t: &Value| {
        json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": t, "progress": 1 } }).to_string()
    };
    let events = p.client.receive(&progress(&token), 900);
    let reported = &of_type(&events, "progress")[0];
    assert_eq!(reported["id"], out.id.clone().unwrap().to_value());
    assert_eq!(reported["params"]["progress"], 1);
    assert_eq!(p.client.next_deadline(), Some(1900));
    assert!(p.client.tick(1899).is_empty());
    p.client.receive(&progress(&token), 1800);
    assert_eq!(p.client.next_deadline(), Some(2500), "capped");
    assert!(p.client.tick(2499).is_empty());
    assert_eq!(of_type(&p.client.tick(2500), "timeout").len(), 1);
    // Without resetOnProgress, progress is reported but the deadline stays.
    let out = p
        .client
        .call_tool(
            "fixed",
            None,
            RequestOptions {
                timeout_ms: Some(1000),
                ..Default::default()
            },
            3000,
        )
        .unwrap();
    let req: Value = serde_json::from_str(&out.text).unwrap();
    assert!(req["params"].get("_meta").is_none());
    p.client.receive(&progress(&json!("other")), 3900);
    assert_eq!(p.client.next_deadline(), Some(4000));
}

/// Progress is read where it stands in the frame, and reads as the general path reads it:
/// the deadline pushed out, the event's token and params as they came (written as the
/// binding writes them, spliced in, they read the same), and a frame with an error reported
/// and delivered all the same.
#[test]
fn progress_read_in_place_reads_as_the_general_path_reads_it() {
    let mut p = ready();
    let options = RequestOptions {
        timeout_ms: Some(1000),
        reset_on_progress: true,
        max_total_ms: None,
    };
    let id = p.client.call_tool("slow", None, options, 0).unwrap().id;
    let id = id.unwrap().to_value();
    let frame = |progress: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{ "progressToken" : {id} , "progress": {progress}, "message": "h\u0069"}}}}"#
        )
    };
    let events = p.client.receive(&frame("1"), 500);
    assert_eq!(p.client.next_deadline(), Some(1500));
    let expected = json!({
        "type": "progress",
        "id": id,
        "progressToken": id,
        "params": { "progressToken": id, "progress": 1, "message": "hi" },
    });
    assert_eq!(values(&events), vec![expected.clone()]);
    let mut text = String::new();
    events[0].write_json(&mut text);
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
    assert!(
        text.contains(r#""message": "h\u0069""#),
        "in place, as it came: {text}"
    );
    // `progress` must be a number: the general path's, the same event after the violation.
    let events = p.client.receive(&frame(r#""half""#), 700);
    assert_eq!(p.client.next_deadline(), Some(1700));
    assert_eq!(
        of_type(&events, "violation").len(),
        1,
        "{:?}",
        values(&events)
    );
    let reported = &of_type(&events, "progress")[0];
    assert_eq!((&reported["id"], &reported["progressToken"]), (&id, &id));
    assert_eq!(reported["params"]["progress"], "half");
    let mut text = String::new();
    events.last().unwrap().write_json(&mut text);
    assert_eq!(&serde_json::from_str::<Value>(&text).unwrap(), reported);
}

#[test]
fn initialize_times_out_without_being_cancelled() {
    let mut c = McpClient::new(client_config(
        json!({ "era": "handshake", "requestTimeoutMs": 500 }),
    ));
    let out = c.initialize(0).unwrap();
    assert!(
        c.cancel(out.id.as_ref().unwrap(), None).is_err(),
        "initialize must not be cancelled"
    );
    let events = c.tick(500);
    assert_eq!(of_type(&events, "timeout")[0]["method"], "initialize");
    assert!(
        sent(&events).is_empty(),
        "no notifications/cancelled for initialize"
    );
    assert_eq!(of_type(&events, "protocolError").len(), 1);
    assert_eq!(of_type(&events, "closed").len(), 1);
}

#[test]
fn discovery_that_times_out_falls_back_to_initialize_in_auto() {
    let mut c = McpClient::new(client_config(
        json!({ "era": "auto", "requestTimeoutMs": 500 }),
    ));
    let out = c.initialize(0).unwrap();
    assert_eq!(out.method.as_deref(), Some("server/discover"));
    let events = c.tick(500);
    let frames = sent(&events);
    assert_eq!(frames[0]["method"], "notifications/cancelled");
    assert_eq!(frames[1]["method"], "initialize");
    assert_eq!(frames[1]["params"]["protocolVersion"], "2025-11-25");
}

#[test]
fn the_application_can_cancel_its_own_request() {
    let mut p = ready();
    let out = p.client.list_tools(None, 0).unwrap();
    let id = out.id.unwrap();
    let cancel = p.client.cancel(&id, Some("user pressed stop")).unwrap();
    let note: Value = serde_json::from_str(&cancel.text).unwrap();
    assert_eq!(
        note["params"],
        json!({ "requestId": id.to_value(), "reason": "user pressed stop" })
    );
    assert_eq!(p.client.next_deadline(), None);
    assert!(p.client.cancel(&id, None).is_err(), "only once");
}

#[test]
fn an_incoming_cancellation_is_reported_and_never_answered() {
    let mut p = ready();
    let out = p
        .client
        .call_tool("t", None, RequestOptions::default(), 0)
        .unwrap();
    p.send(To::Server, out.text);
    let request = of_type(&p.server_events, "request").pop().unwrap();
    let id: Id = serde_json::from_value(request["id"].clone()).unwrap();
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id.to_value(), "reason": "gone" } });
    let events = p.server.receive(&cancel.to_string(), 10);
    assert_eq!(
        values(&events),
        vec![json!({ "type": "cancelled", "requestId": id.to_value(), "reason": "gone" })]
    );
    let refused = p
        .server
        .respond(&id, Ok(json!({ "content": [] })))
        .unwrap_err();
    assert_eq!(refused.code, codes::LOCAL_REFUSAL);
    // The id is free again and nothing was sent.
    assert!(p.server.respond(&id, Ok(json!({}))).is_err());
}

#[test]
fn respond_answers_exactly_once() {
    let mut p = ready();
    let out = p.client.list_tools(None, 0).unwrap();
    p.send(To::Server, out.text);
    let request = of_type(&p.server_events, "request").pop().unwrap();
    let id: Id = serde_json::from_value(request["id"].clone()).unwrap();
    assert!(p
        .server
        .respond(
            &id,
            Err(agentwire::jsonrpc::ProtocolError::internal_error("boom"))
        )
        .is_ok());
    assert!(p.server.respond(&id, Ok(json!({}))).is_err());
}

#[test]
fn closing_reports_what_was_pending() {
    let mut p = ready();
    let a = p.client.list_tools(None, 0).unwrap().id.unwrap();
    let b = p
        .client
        .call_tool("x", None, RequestOptions::default(), 1)
        .unwrap()
        .id
        .unwrap();
    let events = p.client.close();
    let errors = of_type(&events, "error");
    assert_eq!(errors.len(), 2);
    assert!(errors
        .iter()
        .all(|e| e["error"]["code"] == codes::CONNECTION_CLOSED));
    let closed = &of_type(&events, "closed")[0];
    assert_eq!(
        closed["pending"],
        json!([{ "id": a.to_value(), "method": "tools/list" }, { "id": b.to_value(), "method": "tools/call" }])
    );
    assert!(p.client.list_tools(None, 2).is_err());
    assert!(p.client.tick(u64::MAX).is_empty());
}

#[test]
fn after_closed_nothing_and_closed_lists_what_was_pending() {
    use agentwire::mcp::Event;
    let mut c = McpClient::new(client_config(
        json!({ "protocolVersions": ["2025-06-18"], "era": "handshake", "requestTimeoutMs": 100 }),
    ));
    c.initialize(0).expect("initialize");
    c.request("ping", None, Default::default(), 10)
        .expect("ping before the answer");
    let events = c.tick(1_000);
    let last = events.last().expect("events");
    match last {
        Event::Closed { pending } => {
            let methods: Vec<&str> = pending.iter().map(|p| p.method.as_str()).collect();
            assert_eq!(methods, ["initialize", "ping"], "{events:?}");
        }
        other => panic!("closed comes last: {other:?} in {events:?}"),
    }
    let closed_at = events
        .iter()
        .position(|e| matches!(e, Event::Closed { .. }))
        .expect("closed");
    assert_eq!(closed_at, events.len() - 1);
    assert!(
        !events.iter().any(|e| matches!(e, Event::Send { .. })),
        "nothing is sent for a session that ended: {events:?}"
    );
    assert!(c.tick(10_000).is_empty(), "and nothing after");
}
