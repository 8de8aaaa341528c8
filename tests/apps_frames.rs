//! MCP Apps: the bridge's frames judged by the rules generated from the ext-apps schema
//! (`src/schema/rules/apps.rules`) and, for the MCP messages that cross it, by MCP's.
#![cfg(all(feature = "apps", not(target_arch = "wasm32")))]

use agentwire::schema::apps::{Bridge, Refusal, Side};
use agentwire::schema::Limits;
use serde_json::{json, Value};

fn bridge() -> Bridge {
    Bridge::new("2025-11-25", Limits::default()).expect("rules")
}

fn check(b: &mut Bridge, from: Side, frame: Value) -> Option<Refusal> {
    b.check(&frame.to_string(), from)
}

fn ok(b: &mut Bridge, from: Side, frame: Value) {
    if let Some(r) = check(b, from, frame.clone()) {
        panic!("{frame} refused: {r:?}");
    }
}

/// Refused with `code`, the first error at `path`.
fn refused(b: &mut Bridge, from: Side, frame: Value, code: i64, path: &str) -> Refusal {
    let r = check(b, from, frame.clone()).unwrap_or_else(|| panic!("{frame} passed"));
    assert_eq!(r.code, code, "{frame}: {r:?}");
    assert!(
        r.issues.iter().any(|i| i.path == path),
        "{frame}: expected an issue at {path}: {r:?}"
    );
    r
}

#[test]
fn a_handshake_passes() {
    let mut b = bridge();
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 0, "method": "ui/initialize", "params": {
            "appInfo": {"name": "v", "version": "1"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}}),
    );
    ok(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2026-01-26",
            "hostInfo": {"name": "h", "version": "1"}, "hostCapabilities": {"openLinks": {}},
            "hostContext": {"theme": "dark", "displayMode": "inline"}}}),
    );
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
}

#[test]
fn invalid_params_are_refused_with_their_path() {
    let mut b = bridge();
    let r = refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 7, "method": "ui/open-link", "params": {"url": 42}}),
        -32602,
        "/params/url",
    );
    assert_eq!(r.id, Some(json!(7)));
}

const HOST_CONTEXT: &str = r##"{"theme":"dark","displayMode":"inline","availableDisplayModes":["inline","fullscreen"],"locale":"en-US","timeZone":"Europe/Paris","platform":"web","containerDimensions":{"maxHeight":600,"width":400},"styles":{"variables":{"--color-background-primary":"#000","--font-sans":"system-ui"},"css":{"fonts":"@font-face{}"}},"safeAreaInsets":{"top":0,"right":0,"bottom":0,"left":0},"deviceCapabilities":{"touch":false,"hover":true},"toolInfo":{"id":3,"tool":{"name":"weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}}}"##;

/// One valid frame of every `ui/*` message, each from the side that sends it, and the
/// answer to each request from the other side.
#[test]
fn every_ui_message_passes_from_its_sender_and_is_refused_from_the_other_side() {
    let ctx: Value = serde_json::from_str(HOST_CONTEXT).unwrap();
    let view: Vec<(&str, Value, Option<Value>)> = vec![
        (
            "ui/initialize",
            json!({"appInfo": {"name": "v", "version": "1", "title": "V"}, "appCapabilities": {"tools": {"listChanged": true}, "availableDisplayModes": ["inline"]}, "protocolVersion": "2026-01-26"}),
            Some(
                json!({"protocolVersion": "2026-01-26", "hostInfo": {"name": "h", "version": "1"}, "hostCapabilities": {"openLinks": {}, "serverTools": {"listChanged": true}, "logging": {}, "sandbox": {"csp": {"connectDomains": ["https://api.example.com"]}}}, "hostContext": ctx.clone()}),
            ),
        ),
        ("ui/notifications/initialized", json!({}), None),
        (
            "ui/open-link",
            json!({"url": "https://example.com"}),
            Some(json!({})),
        ),
        (
            "ui/download-file",
            json!({"contents": [{"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "a"}}]}),
            Some(json!({"isError": false})),
        ),
        (
            "ui/message",
            json!({"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image", "data": "aGk=", "mimeType": "image/png"}]}),
            Some(json!({})),
        ),
        (
            "ui/request-display-mode",
            json!({"mode": "pip"}),
            Some(json!({"mode": "inline"})),
        ),
        (
            "ui/update-model-context",
            json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1}}),
            Some(json!({})),
        ),
        (
            "ui/notifications/size-changed",
            json!({"width": 300, "height": 120.5}),
            None,
        ),
        ("ui/notifications/request-teardown", json!({}), None),
        ("ui/notifications/sandbox-proxy-ready", json!({}), None),
    ];
    let host: Vec<(&str, Value, Option<Value>)> = vec![
        ("ui/resource-teardown", json!({}), Some(json!({}))),
        (
            "ui/notifications/tool-input",
            json!({"arguments": {"city": "Paris"}}),
            None,
        ),
        (
            "ui/notifications/tool-input-partial",
            json!({"arguments": {"city": "Pa"}}),
            None,
        ),
        (
            "ui/notifications/tool-result",
            json!({"content": [{"type": "text", "text": "18"}], "structuredContent": {"c": 18}}),
            None,
        ),
        (
            "ui/notifications/tool-cancelled",
            json!({"reason": "user action"}),
            None,
        ),
        ("ui/notifications/host-context-changed", ctx.clone(), None),
        (
            "ui/notifications/sandbox-resource-ready",
            json!({"html": "<p>hi</p>", "sandbox": "allow-scripts", "csp": {"resourceDomains": ["https://cdn.example.com"]}, "permissions": {"camera": {}}}),
            None,
        ),
    ];
    let mut b = bridge();
    let mut id = 0;
    for (from, list) in [(Side::View, &view), (Side::Host, &host)] {
        for (method, params, result) in list {
            id += 1;
            let mut frame = json!({"jsonrpc": "2.0", "method": method, "params": params});
            if result.is_some() {
                frame["id"] = json!(id);
            }
            // From the wrong side first: refused, nothing remembered.
            let wrong = if from == Side::View {
                Side::Host
            } else {
                Side::View
            };
            refused(&mut b, wrong, frame.clone(), -32601, "/method");
            ok(&mut b, from, frame);
            if let Some(r) = result {
                ok(
                    &mut b,
                    wrong,
                    json!({"jsonrpc": "2.0", "id": id, "result": r}),
                );
            }
        }
    }
    assert_eq!(b.in_flight(Side::View) + b.in_flight(Side::Host), 0);
}

#[test]
fn an_unknown_member_of_a_closed_object_is_refused_at_its_path() {
    let mut b = bridge();
    let r = refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ui/open-link", "params": {"url": "https://x", "target": "_top"}}),
        -32602,
        "/params/target",
    );
    assert!(
        r.message.starts_with("Invalid params at /params/target"),
        "{}",
        r.message
    );
    refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 2, "method": "ui/initialize", "params": {"appInfo": {"name": "v", "version": "1", "evil": true}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}}),
        -32602,
        "/params/appInfo/evil",
    );
    refused(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-resource-ready", "params": {"html": "", "permissions": {"usb": {}}}}),
        -32602,
        "/params/permissions/usb",
    );
    // A style variable outside the list.
    refused(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/host-context-changed", "params": {"styles": {"variables": {"--my-color": "red"}}}}),
        -32602,
        "/params/styles/variables/--my-color",
    );
}

/// The two places where the schema, as zod wrote it, refuses what the package accepts:
/// accepted with a `tolerated` warning (docs/validation.md).
#[test]
fn a_subset_of_style_variables_and_both_container_dimensions_are_tolerated() {
    use agentwire::schema::{validate_text, Context, Direction, Severity};
    let ctx = Context {
        protocol: agentwire::schema::Protocol::Apps,
        version: "2026-01-26",
        direction: Direction::ServerToClient,
        in_reply_to: None,
    };
    for params in [
        json!({"styles": {"variables": {"--color-background-primary": "#fff"}}}),
        json!({"containerDimensions": {"height": 300, "maxWidth": 800}}),
        json!({"containerDimensions": {"maxHeight": 300, "width": 800}}),
    ] {
        let frame = json!({"jsonrpc": "2.0", "method": "ui/notifications/host-context-changed", "params": params});
        let r = validate_text(&frame.to_string(), &ctx, &Limits::default());
        assert!(r.ok, "{frame}: {:?}", r.issues);
        assert!(
            r.issues
                .iter()
                .any(|i| i.code == "tolerated" && i.severity == Severity::Warning),
            "{frame}: {:?}",
            r.issues
        );
        ok(&mut bridge(), Side::Host, frame);
    }
    // Every variable, or one dimension each way alone: the schema's own reading, no warning.
    let all: serde_json::Map<String, Value> = serde_json::from_str::<Value>(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json"
        ))
        .expect("the ext-apps package (npm ci)"),
    )
    .unwrap()["$defs"]["McpUiStyles"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k.as_str().unwrap().to_string(), json!("x")))
        .collect();
    assert_eq!(all.len(), 76);
    let frame = json!({"jsonrpc": "2.0", "method": "ui/notifications/host-context-changed", "params": {"styles": {"variables": all}, "containerDimensions": {}}});
    let r = validate_text(&frame.to_string(), &ctx, &Limits::default());
    assert!(r.ok && r.issues.is_empty(), "{:?}", r.issues);
    // Outside both readings: a width that is no number.
    refused(
        &mut bridge(),
        Side::Host,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/host-context-changed", "params": {"containerDimensions": {"width": "wide", "height": 1, "depth": 3}}}),
        -32602,
        "/params/containerDimensions/depth",
    );
}

#[test]
fn mcp_messages_cross_only_where_the_package_sends_them_and_by_the_version_in_use() {
    let mut b = bridge();
    // View → Host: proxied to the server, or logged.
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {"a": 1}, "_meta": {"progressToken": 1}}}),
    );
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "ui://x/app.html"}}),
    );
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": {"x": 1}}}),
    );
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    );
    // Host → View: the View's own tools.
    ok(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
    );
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "d", "inputSchema": {"type": "object"}}]}}),
    );
    // Not across this bridge.
    for (from, m) in [
        (Side::View, "tools/list"),
        (Side::View, "initialize"),
        (Side::View, "elicitation/create"),
        (Side::Host, "resources/read"),
        (Side::Host, "notifications/message"),
    ] {
        refused(
            &mut b,
            from,
            json!({"jsonrpc": "2.0", "id": 99, "method": m, "params": {}}),
            -32601,
            "/method",
        );
    }
    // Invalid by MCP 2025-11-25.
    refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 5}}),
        -32602,
        "/params/name",
    );
    refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "shout", "data": 1}}),
        -32602,
        "/params/level",
    );
    // The host's answer to a proxied call: MCP's CallToolResult.
    refused(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": 5}]}}),
        -32602,
        "/result/content/0/text",
    );
    // `ping` is gone from 2026-07-28: the version in use decides.
    let mut stateless = Bridge::new("2026-07-28", Limits::default()).unwrap();
    let r = check(
        &mut stateless,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    let known = agentwire::schema::validate_text(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        &agentwire::schema::Context {
            protocol: agentwire::schema::Protocol::Mcp,
            version: "2026-07-28",
            direction: agentwire::schema::Direction::ClientToServer,
            in_reply_to: None,
        },
        &Limits::default(),
    )
    .ok;
    assert_eq!(
        r.is_none(),
        known,
        "the bridge follows MCP 2026-07-28's rules for ping: {r:?}"
    );
}

#[test]
fn a_tool_result_is_judged_as_the_servers_call_tool_result() {
    let mut b = bridge();
    // Valid by the apps schema's inline copy, invalid by MCP: an image without its mimeType.
    let r = refused(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": {"content": [{"type": "image", "data": "aGk="}]}}),
        -32602,
        "/params/content/0/mimeType",
    );
    assert_eq!(r.id, None, "a notification is not answered");
    ok(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": {"content": [], "isError": true, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}}}),
    );
}

#[test]
fn responses_pair_with_the_request_they_answer() {
    let mut b = bridge();
    // Nothing in flight.
    let r = refused(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        -32600,
        "/id",
    );
    assert_eq!(r.id, None);
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": "x", "method": "ui/request-display-mode", "params": {"mode": "fullscreen"}}),
    );
    // An id of another type is another id.
    refused(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"mode": "inline"}}),
        -32600,
        "/id",
    );
    // The asker cannot answer itself.
    refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": "x", "result": {"mode": "inline"}}),
        -32600,
        "/id",
    );
    refused(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": "x", "result": {"mode": "maximized"}}),
        -32602,
        "/result/mode",
    );
    assert_eq!(b.in_flight(Side::View), 0);
    // An error answer, well formed.
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 2, "method": "ui/open-link", "params": {"url": "https://x"}}),
    );
    ok(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "denied"}}),
    );
    // Duplicate ids while in flight.
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 3, "method": "ui/open-link", "params": {"url": "https://x"}}),
    );
    let r = refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 3, "method": "ui/open-link", "params": {"url": "https://y"}}),
        -32600,
        "/id",
    );
    assert_eq!(r.id, Some(json!(3)));
    b.reset();
    assert_eq!(b.in_flight(Side::View), 0);
}

#[test]
fn what_is_no_message_is_answered_with_a_null_id() {
    let mut b = bridge();
    for (text, code) in [
        ("", -32700),
        ("{", -32700),
        ("\"ui/initialize\"", -32600),
        ("[{\"jsonrpc\":\"2.0\",\"method\":\"ui/notifications/initialized\"}]", -32600),
        ("{\"jsonrpc\":\"2.0\"}", -32600),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", -32600),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ui/open-link\",\"params\":{\"url\":\"x\"},\"result\":{}}", -32600),
    ] {
        let r = b.check(text, Side::View).unwrap_or_else(|| panic!("{text} passed"));
        assert_eq!(r.code, code, "{text}: {r:?}");
        if code == -32700 || text.starts_with('[') || text.starts_with('"') || text == "{\"jsonrpc\":\"2.0\"}" {
            assert_eq!(r.id, Some(Value::Null), "{text}");
        }
    }
    // A request whose id is no valid id is answered with null.
    let r = refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": [1], "method": "ui/open-link", "params": {"url": "x"}}),
        -32600,
        "/id",
    );
    assert_eq!(r.id, Some(Value::Null));
}

#[test]
fn bounds_hold_against_a_flooding_view() {
    let mut b = Bridge::new(
        "2025-11-25",
        Limits {
            max_bytes: 4096,
            max_depth: 32,
        },
    )
    .unwrap();
    let big = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x".repeat(5000)}});
    let r = b.check(&big.to_string(), Side::View).unwrap();
    assert_eq!((r.code, r.issues[0].code), (-32600, "too_large"));
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let r = b.check(&deep, Side::View).unwrap();
    assert_eq!((r.code, r.issues[0].code), (-32600, "too_deep"));
    for i in 0..agentwire::schema::apps::MAX_PENDING {
        ok(
            &mut b,
            Side::View,
            json!({"jsonrpc": "2.0", "id": i, "method": "ping"}),
        );
    }
    let r = refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": "one more", "method": "ping"}),
        -32600,
        "/id",
    );
    assert_eq!(r.issues[0].code, "too_large");
    // The host's side has its own room.
    ok(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    // What is kept per request is bounded too: a long id is refused (answered with null), and
    // an extension method's name, however long, is not kept.
    let mut b = bridge();
    let long = "i".repeat(agentwire::schema::apps::MAX_ID_BYTES);
    let r = refused(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": long, "method": "ping"}),
        -32600,
        "/id",
    );
    assert_eq!(r.id, Some(Value::Null));
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": "i".repeat(200), "method": "ping"}),
    );
    let ext = format!("_{}", "x".repeat(100_000));
    ok(
        &mut b,
        Side::View,
        json!({"jsonrpc": "2.0", "id": 7, "method": ext}),
    );
    ok(
        &mut b,
        Side::Host,
        json!({"jsonrpc": "2.0", "id": 7, "result": {"anything": true}}),
    );
}

#[test]
fn the_method_table_comes_from_the_schema_and_the_crossing_list() {
    let b = bridge();
    let t = b.methods();
    let row = |m: &str, rules: &str| {
        t.iter()
            .find(|r| r.method == m && r.rules == rules)
            .unwrap_or_else(|| panic!("{m} ({rules}) not in {t:?}"))
    };
    // Every definition of the schema whose `method` is a constant, and nothing else.
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json"
        ))
        .expect("the ext-apps package (npm ci)"),
    )
    .unwrap();
    let mut from_schema: Vec<&str> = schema["$defs"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|d| d["properties"]["method"]["const"].as_str())
        .collect();
    from_schema.sort();
    let mut ours: Vec<&str> = t
        .iter()
        .filter(|r| r.rules == "mcp-apps")
        .map(|r| r.method)
        .collect();
    ours.sort();
    assert_eq!(ours, from_schema);
    assert_eq!(ours.len(), 17);
    let init = row("ui/initialize", "mcp-apps");
    assert_eq!((init.from, init.request), ("view", true));
    let input = row("ui/notifications/tool-input", "mcp-apps");
    assert_eq!((input.from, input.request), ("host", false));
    assert_eq!(row("ui/resource-teardown", "mcp-apps").from, "host");
    let call = row("tools/call", "mcp");
    assert_eq!((call.from, call.request), ("both", true));
    assert_eq!(row("notifications/message", "mcp").from, "view");
    assert_eq!(row("tools/list", "mcp").from, "host");
}
