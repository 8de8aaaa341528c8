#![cfg(not(target_arch = "wasm32"))]
//! The validator's behaviour: codes, JSON-pointer paths, severities, the envelope, methods
//! and directions, limits, and never a panic.

use agentwire::jsonrpc::{parse, Incoming, ParseOptions};
use agentwire::schema::{
    codes, validate_message, validate_text, validate_value, Context, Direction, Limits, Protocol,
    Severity,
};
use proptest::prelude::*;
use serde_json::{json, Value};

const C2S: Direction = Direction::ClientToServer;
const S2C: Direction = Direction::ServerToClient;

fn ctx(
    protocol: Protocol,
    version: &'static str,
    direction: Direction,
    in_reply_to: Option<&'static str>,
) -> Context<'static> {
    Context {
        protocol,
        version,
        direction,
        in_reply_to,
    }
}

fn acp1(direction: Direction) -> Context<'static> {
    ctx(Protocol::Acp, "1", direction, None)
}

/// (path, code, severity) of every issue.
fn issues(v: &Value, c: &Context) -> Vec<(String, &'static str, Severity)> {
    validate_value(v, c, &Limits::default())
        .issues
        .into_iter()
        .map(|i| (i.path, i.code, i.severity))
        .collect()
}

fn errors(v: &Value, c: &Context) -> Vec<(String, &'static str)> {
    issues(v, c)
        .into_iter()
        .filter(|i| i.2 == Severity::Error)
        .map(|(p, c, _)| (p, c))
        .collect()
}

fn prompt(blocks: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"sessionId": "s", "prompt": blocks}})
}

#[test]
fn codes_and_paths_for_acp_params() {
    let e = |blocks| errors(&prompt(blocks), &acp1(C2S));
    let cases: Vec<(Value, Vec<(&str, &str)>)> = vec![
        (json!([{"type": "text", "text": "hi"}]), vec![]),
        (
            json!([{"type": "text"}]),
            vec![("/params/prompt/0/text", codes::MISSING_REQUIRED)],
        ),
        (
            json!([{"type": "text", "text": 5}]),
            vec![("/params/prompt/0/text", codes::WRONG_TYPE)],
        ),
        (
            json!([{"type": "txt", "text": "a"}]),
            vec![("/params/prompt/0/type", codes::UNKNOWN_ENUM_VALUE)],
        ),
        (
            json!([{"text": "a"}]),
            vec![("/params/prompt/0/type", codes::MISSING_REQUIRED)],
        ),
        (
            json!([{"type": "image", "data": "AA==", "mimeType": "image/png"}, {"type": "image"}]),
            vec![
                ("/params/prompt/1/data", codes::MISSING_REQUIRED),
                ("/params/prompt/1/mimeType", codes::MISSING_REQUIRED),
            ],
        ),
        (
            json!([{"type": "resource_link", "uri": "file:///a", "name": "a"}]),
            vec![],
        ),
        (json!("hi"), vec![("/params/prompt", codes::WRONG_TYPE)]),
        // Unknown members are allowed (no additionalProperties: false anywhere in ACP).
        (
            json!([{"type": "text", "text": "hi", "future": 1, "_meta": {"x": 1}}]),
            vec![],
        ),
    ];
    for (blocks, want) in cases {
        let got = e(blocks.clone());
        let want: Vec<(String, &str)> = want.into_iter().map(|(p, c)| (p.to_string(), c)).collect();
        assert_eq!(got, want, "{blocks}");
    }
}

#[test]
fn session_updates_and_tool_call_content() {
    let update = |u: Value| json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": u}});
    let ok = [
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "Read", "kind": "read", "status": "pending",
               "content": [{"type": "diff", "path": "/a", "newText": "x"}, {"type": "terminal", "terminalId": "t1"}]}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "completed"}),
        json!({"sessionUpdate": "plan", "entries": [{"content": "a", "priority": "high", "status": "pending"}]}),
    ];
    for u in ok {
        assert_eq!(errors(&update(u.clone()), &acp1(S2C)), vec![], "{u}");
    }
    let bad = update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x", "kind": "nope"}),
    );
    assert_eq!(
        errors(&bad, &acp1(S2C)),
        vec![("/params/update/kind".to_string(), codes::UNKNOWN_ENUM_VALUE)]
    );
    let bad = update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x", "content": [{"type": "diff", "path": "/a"}]}),
    );
    assert_eq!(
        errors(&bad, &acp1(S2C)),
        vec![(
            "/params/update/content/0/newText".to_string(),
            codes::MISSING_REQUIRED
        )]
    );
    let bad = update(json!({"sessionUpdate": "telepathy"}));
    assert_eq!(
        errors(&bad, &acp1(S2C)),
        vec![(
            "/params/update/sessionUpdate".to_string(),
            codes::UNKNOWN_ENUM_VALUE
        )]
    );
}

#[test]
fn json_pointer_escaping() {
    // MCP 2026 `_meta` keys contain `/`: the pointer escapes it as `~1` (RFC 6901).
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": 5,
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let got = errors(&msg, &ctx(Protocol::Mcp, "2026-07-28", C2S, None));
    assert!(
        got.iter()
            .any(|(p, _)| p == "/params/_meta/io.modelcontextprotocol~1protocolVersion"),
        "{got:?}"
    );
    for (p, _) in &got {
        assert!(p.starts_with('/') && !p.contains("//"), "{p}");
    }
}

#[test]
fn envelope_methods_and_directions() {
    let a = |v: Value, d| errors(&v, &acp1(d));
    let one = |p: &str, c: &'static str| vec![(p.to_string(), c)];
    assert_eq!(
        a(
            json!({"method": "session/cancel", "params": {"sessionId": "s"}}),
            C2S
        ),
        one("/jsonrpc", codes::INVALID_ENVELOPE)
    );
    assert_eq!(
        a(json!({"jsonrpc": "2.0", "method": 7}), C2S),
        one("/method", codes::INVALID_ENVELOPE)
    );
    assert_eq!(
        a(json!({"jsonrpc": "2.0", "id": 1}), C2S),
        one("", codes::INVALID_ENVELOPE)
    );
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": 1, "result": 1, "error": {}}),
            C2S
        ),
        one("", codes::INVALID_ENVELOPE)
    );
    assert_eq!(a(json!([]), C2S), one("", codes::INVALID_ENVELOPE));
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/teleport", "params": {}}),
            C2S
        ),
        one("/method", codes::UNKNOWN_METHOD)
    );
    // Extension methods pass whatever they carry.
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": 1, "method": "_zed/anything", "params": [1]}),
            C2S
        ),
        vec![]
    );
    // A client→agent request sent by the agent; a notification sent with an id.
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}}),
            S2C
        ),
        one("/method", codes::NOT_ALLOWED_HERE)
    );
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/cancel", "params": {"sessionId": "s"}}),
            C2S
        ),
        one("/method", codes::NOT_ALLOWED_HERE)
    );
    // Error objects follow the schema's Error definition.
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}),
            S2C
        ),
        one("/error/code", codes::WRONG_TYPE)
    );
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "m"}}),
            S2C
        ),
        vec![]
    );
    // Params omitted: fine where `{}` is valid (session/list), missing where it is not.
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/list"}),
            C2S
        ),
        vec![]
    );
    assert_eq!(
        a(
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/new"}),
            C2S
        ),
        one("/params", codes::MISSING_REQUIRED)
    );
    // MCP forbids null ids (RequestId is string or integer).
    let m = ctx(Protocol::Mcp, "2025-11-25", C2S, None);
    assert_eq!(
        errors(&json!({"jsonrpc": "2.0", "id": null, "method": "ping"}), &m),
        one("/id", codes::WRONG_TYPE)
    );
}

#[test]
fn responses_by_the_method_they_answer() {
    let tools = |t: Value| json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [t]}});
    let c = ctx(Protocol::Mcp, "2025-11-25", S2C, Some("tools/list"));
    // The response travels server→client: the context's direction is the sender's.
    let c = Context {
        direction: C2S,
        ..c
    };
    let good = json!({"name": "echo", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}});
    assert_eq!(
        errors(
            &tools(good),
            &Context {
                direction: S2C,
                ..c.clone()
            }
        ),
        vec![]
    );
    assert_eq!(
        errors(
            &tools(json!({"name": "echo", "inputSchema": {"type": "object"}})),
            &c
        ),
        vec![("".to_string(), codes::NOT_ALLOWED_HERE)]
    );
    let c = Context {
        direction: S2C,
        ..c
    };
    // JSON Schema fragments carried in the message: `type` must be "object".
    assert_eq!(
        errors(
            &tools(json!({"name": "echo", "inputSchema": {"type": "array"}})),
            &c
        ),
        vec![(
            "/result/tools/0/inputSchema/type".to_string(),
            codes::UNKNOWN_ENUM_VALUE
        )]
    );
    assert_eq!(
        errors(&tools(json!({"inputSchema": {"type": "object"}})), &c),
        vec![("/result/tools/0/name".to_string(), codes::MISSING_REQUIRED)]
    );
    // MCP content types in a tools/call result.
    let call = |content: Value| json!({"jsonrpc": "2.0", "id": 2, "result": {"content": content}});
    let c = Context {
        in_reply_to: Some("tools/call"),
        ..c
    };
    assert_eq!(
        errors(
            &call(
                json!([{"type": "text", "text": "a"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}])
            ),
            &c
        ),
        vec![]
    );
    assert_eq!(
        errors(&call(json!([{"type": "video"}])), &c),
        vec![(
            "/result/content/0/type".to_string(),
            codes::UNKNOWN_ENUM_VALUE
        )]
    );
    // Without in_reply_to a result is not judged; `_` extension methods neither.
    let free = Context {
        in_reply_to: None,
        ..c.clone()
    };
    assert_eq!(errors(&call(json!(5)), &free), vec![]);
    assert_eq!(
        errors(
            &call(json!(5)),
            &Context {
                in_reply_to: Some("_x/y"),
                ..c
            }
        ),
        vec![]
    );
}

#[test]
fn tolerated_deviations_are_warnings() {
    let v2 = ctx(Protocol::Acp, "2", C2S, None);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2, "clientInfo": {"name": "c", "version": "1"}}});
    let r = validate_value(&init, &v2, &Limits::default());
    assert!(r.ok);
    assert_eq!(
        r.issues
            .iter()
            .map(|i| (i.path.as_str(), i.code, i.severity))
            .collect::<Vec<_>>(),
        vec![("/params/clientInfo", codes::TOLERATED, Severity::Warning)]
    );
    // Neither name: the newest draft's `info` is what is missing.
    let bare = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2}});
    assert_eq!(
        errors(&bare, &v2),
        vec![("/params/info".to_string(), codes::MISSING_REQUIRED)]
    );
    // v2 session/load: the earlier draft's name of session/resume.
    let load = json!({"jsonrpc": "2.0", "id": 1, "method": "session/load", "params": {"sessionId": "s", "cwd": "/a"}});
    let got = issues(&load, &v2);
    assert_eq!(
        got,
        vec![("/method".to_string(), codes::TOLERATED, Severity::Warning)]
    );
    // session/load answered with null (seed 002) in v1; a wrong shape is still an error.
    let c = ctx(Protocol::Acp, "1", S2C, Some("session/load"));
    assert_eq!(
        issues(&json!({"jsonrpc": "2.0", "id": 1, "result": null}), &c),
        vec![("/result".to_string(), codes::TOLERATED, Severity::Warning)]
    );
    assert_eq!(
        errors(&json!({"jsonrpc": "2.0", "id": 1, "result": 3}), &c),
        vec![("/result".to_string(), codes::WRONG_TYPE)]
    );
}

#[test]
fn mcp_versions_differ_where_the_schemas_do() {
    // `elicitation/create` exists from 2025-06-18; server/discover only in 2026-07-28.
    let elicit = json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}});
    assert_eq!(
        errors(&elicit, &ctx(Protocol::Mcp, "2025-03-26", S2C, None)),
        vec![("/method".to_string(), codes::UNKNOWN_METHOD)]
    );
    assert_eq!(
        errors(&elicit, &ctx(Protocol::Mcp, "2025-06-18", S2C, None)),
        vec![]
    );
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    assert_eq!(
        errors(&discover, &ctx(Protocol::Mcp, "2026-07-28", C2S, None)),
        vec![]
    );
    assert_eq!(
        errors(&discover, &ctx(Protocol::Mcp, "2025-11-25", C2S, None)),
        vec![("/method".to_string(), codes::UNKNOWN_METHOD)]
    );
    // Batches only where the version has them.
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
    assert!(
        validate_text(
            batch,
            &ctx(Protocol::Mcp, "2025-03-26", C2S, None),
            &Limits::default()
        )
        .ok
    );
    let r = validate_text(
        batch,
        &ctx(Protocol::Mcp, "2025-06-18", C2S, None),
        &Limits::default(),
    );
    assert_eq!(r.issues[0].code, codes::INVALID_ENVELOPE);
    let r = validate_text(
        "[1]",
        &ctx(Protocol::Mcp, "2025-03-26", C2S, None),
        &Limits::default(),
    );
    assert_eq!(
        (r.issues[0].path.as_str(), r.issues[0].code),
        ("/0", codes::INVALID_ENVELOPE)
    );
    let r = validate_text(
        "{}",
        &ctx(Protocol::Mcp, "1999-01-01", C2S, None),
        &Limits::default(),
    );
    assert_eq!(r.issues[0].code, codes::UNKNOWN_VERSION);
}

#[test]
fn limits() {
    let c = acp1(C2S);
    let small = Limits {
        max_bytes: 64,
        max_depth: 4,
    };
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"_x","params":{{"a":"{}"}}}}"#,
        "x".repeat(100)
    );
    let r = validate_text(&big, &c, &small);
    assert_eq!((r.ok, r.issues[0].code), (false, codes::TOO_LARGE));
    let r = validate_text(
        r#"{"jsonrpc":"2.0","method":"_x","params":[[[[1]]]]}"#,
        &c,
        &small,
    );
    assert_eq!((r.ok, r.issues[0].code), (false, codes::TOO_DEEP));
    // 10^5 levels: refused by the limit, no stack used for it.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","method":"_x","params":{}1{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let r = validate_text(&deep, &c, &Limits::default());
    assert_eq!(r.issues[0].code, codes::TOO_DEEP);
    let r = validate_text(
        &deep,
        &c,
        &Limits {
            max_bytes: usize::MAX,
            max_depth: usize::MAX,
        },
    );
    assert_eq!(
        r.issues[0].code,
        codes::TOO_DEEP,
        "depth is capped whatever the limits say"
    );
    // Deeper than serde_json's 128 and within ours: checked, here against MCP 2026's
    // recursive JSONValue (capabilities.experimental.*.*), which has no null.
    let mcp = ctx(Protocol::Mcp, "2026-07-28", C2S, None);
    let with = |levels: usize, leaf: &str| {
        let nested = format!("{}{leaf}{}", "[".repeat(levels), "]".repeat(levels));
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"experimental":{{"x":{{"y":{nested}}}}}}}}}}}}}"#
        )
    };
    assert!(validate_text(&with(200, "1"), &mcp, &Limits::default()).ok);
    let r = validate_text(&with(200, "null"), &mcp, &Limits::default());
    assert!(
        !r.ok && r.issues[0].path.ends_with(&"/0".repeat(200)),
        "{:?}",
        r.issues
    );
    // At the hard cap, walked to the bottom within the 2 MiB stack of a test thread, in a
    // debug build.
    let wide = Limits {
        max_bytes: 1 << 20,
        max_depth: 2000,
    };
    assert!(validate_text(&with(500, "1"), &mcp, &wide).ok);
    let r = validate_text(&with(500, "null"), &mcp, &wide);
    assert_eq!(r.issues[0].code, codes::WRONG_TYPE);
    assert_eq!(
        validate_text(&with(600, "1"), &mcp, &wide).issues[0].code,
        codes::TOO_DEEP
    );
    // A 16 MiB-class message in linear time (a big text block).
    let huge = prompt(json!([{"type": "text", "text": "y".repeat(8 << 20)}])).to_string();
    assert!(validate_text(&huge, &c, &Limits::default()).ok);
    assert_eq!(
        validate_text("{\"a\":", &c, &Limits::default()).issues[0].code,
        codes::INVALID_JSON
    );
}

#[test]
fn validate_message_matches_validate_text() {
    let text = r#"{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text"}]}}"#;
    let Ok(Incoming::Single(m)) = parse(text, &ParseOptions::default()) else {
        panic!("parses")
    };
    let c = acp1(C2S);
    assert_eq!(
        validate_message(&m, &c),
        validate_text(text, &c, &Limits::default()).issues
    );
    assert_eq!(validate_message(&m, &c)[0].path, "/params/prompt/0/text");
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        prop::sample::select(vec![
            "text",
            "image",
            "session/update",
            "2.0",
            "tool_call",
            "",
            "/a",
            "~/"
        ])
        .prop_map(Value::from),
        ".*".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "type",
                    "text",
                    "sessionId",
                    "update",
                    "sessionUpdate",
                    "content",
                    "params",
                    "method",
                    "id",
                    "jsonrpc",
                    "result",
                    "error",
                    "code",
                    "message",
                    "prompt",
                    "tools",
                    "name",
                    "inputSchema",
                    "_meta",
                    "x"
                ])
                .prop_map(String::from),
                inner,
                0..6,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn never_panics_and_paths_point_into_the_message(
        body in arb_json(),
        method in prop::sample::select(vec!["session/prompt", "session/update", "initialize", "tools/call", "tools/list", "session/new", "x"]),
        kind in 0u8..4,
    ) {
        let msg = match kind {
            0 => json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": body}),
            1 => json!({"jsonrpc": "2.0", "method": method, "params": body}),
            2 => json!({"jsonrpc": "2.0", "id": 1, "result": body}),
            _ => body,
        };
        for (protocol, version) in [(Protocol::Acp, "1"), (Protocol::Acp, "2"), (Protocol::Mcp, "2024-11-05"), (Protocol::Mcp, "2025-11-25"), (Protocol::Mcp, "2026-07-28")] {
            for direction in [C2S, S2C] {
                let c = Context { protocol, version, direction, in_reply_to: Some(method) };
                let r = validate_value(&msg, &c, &Limits::default());
                prop_assert_eq!(r.ok, !r.issues.iter().any(|i| i.severity == Severity::Error));
                for i in &r.issues {
                    // Every path is a JSON pointer to the value concerned or to the member
                    // that is missing: its parent always exists.
                    let parent = i.path.rsplit_once('/').map_or("", |(p, _)| p);
                    prop_assert!(i.path.is_empty() || i.path.starts_with('/'));
                    prop_assert!(msg.pointer(parent).is_some(), "{} in {}", i.path, msg);
                    if i.code != codes::MISSING_REQUIRED && i.code != codes::INVALID_ENVELOPE {
                        prop_assert!(msg.pointer(&i.path).is_some(), "{} {} in {}", i.path, i.code, msg);
                    }
                }
            }
        }
        // Text that is not JSON at all.
        let text = msg.to_string();
        let half = (0..=text.len() / 2).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let cut = &text[..half];
        let r = validate_text(cut, &acp1(C2S), &Limits::default());
        prop_assert!(cut.is_empty() || !r.ok || serde_json::from_str::<Value>(cut).is_ok());
    }
}

#[test]
fn a_task_augmented_request_may_be_answered_with_create_task_result() {
    let task = json!({"jsonrpc": "2.0", "id": 3, "result": {"task": {
        "taskId": "t1", "status": "working", "ttl": 60000, "createdAt": "2025-11-25T10:00:00Z", "lastUpdatedAt": "2025-11-25T10:00:00Z"}}});
    let plain =
        json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "ok"}]}});
    for (method, dir) in [
        ("tools/call", S2C),
        ("sampling/createMessage", C2S),
        ("elicitation/create", C2S),
    ] {
        let c = Context {
            protocol: Protocol::Mcp,
            version: "2025-11-25",
            direction: dir,
            in_reply_to: Some(method),
        };
        let r = validate_value(&task, &c, &Limits::default());
        assert!(r.ok && r.issues.is_empty(), "{method}: {r:?}");
    }
    let c = Context {
        protocol: Protocol::Mcp,
        version: "2025-11-25",
        direction: S2C,
        in_reply_to: Some("tools/call"),
    };
    assert!(validate_value(&plain, &c, &Limits::default()).ok);
    // Neither shape: the usual result's issue is told.
    let r = validate_value(
        &json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
        &c,
        &Limits::default(),
    );
    assert_eq!(
        r.issues
            .iter()
            .map(|i| (i.path.as_str(), i.code))
            .collect::<Vec<_>>(),
        [("/result/content", "missing_required")],
        "{r:?}"
    );
    // Only 2025-11-25 has tasks.
    let c = Context {
        version: "2025-06-18",
        ..c
    };
    assert!(!validate_value(&task, &c, &Limits::default()).ok);
}

#[test]
fn a_number_in_an_elicitation_answer_is_tolerated_as_sep_1034_number_fields_give_them() {
    let answer = json!({"jsonrpc": "2.0", "id": 4, "result": {"action": "accept", "content": {"score": 95.5, "name": "x", "n": 3}}});
    // (2026-07-28 answers elicitations inside other requests' input responses, with the same rule.)
    for version in ["2025-06-18", "2025-11-25"] {
        let c = Context {
            protocol: Protocol::Mcp,
            version,
            direction: C2S,
            in_reply_to: Some("elicitation/create"),
        };
        let r = validate_value(&answer, &c, &Limits::default());
        assert!(r.ok, "{version}: {r:?}");
        assert_eq!(
            r.issues
                .iter()
                .map(|i| (i.path.as_str(), i.code, i.severity))
                .collect::<Vec<_>>(),
            [("/result/content/score", "tolerated", Severity::Warning)],
            "{version}"
        );
    }
}

#[test]
fn an_invalid_answer_to_a_task_augmentable_request_is_told_against_the_usual_result() {
    // The answer recognises members of the usual result, not of CreateTaskResult: the usual
    // result's issues are told, never `/result/task missing_required`.
    let cases = [
        (
            "elicitation/create",
            json!({"action": "bogus"}),
            "/result/action",
        ),
        (
            "sampling/createMessage",
            json!({"role": "assistant", "content": {"type": "text"}, "model": 5}),
            "/result/",
        ),
        ("sampling/createMessage", json!({}), "/result/"),
        (
            "tools/call",
            json!({"content": [{"type": "text"}], "isError": "no"}),
            "/result/",
        ),
    ];
    for (method, result, prefix) in cases {
        let dir = if method == "tools/call" { S2C } else { C2S };
        let c = Context {
            protocol: Protocol::Mcp,
            version: "2025-11-25",
            direction: dir,
            in_reply_to: Some(method),
        };
        let r = validate_value(
            &json!({"jsonrpc": "2.0", "id": 3, "result": result}),
            &c,
            &Limits::default(),
        );
        assert!(!r.ok, "{method}: {r:?}");
        assert!(
            r.issues
                .iter()
                .all(|i| i.path.starts_with(prefix) && !i.path.starts_with("/result/task")),
            "{method} {result}: {r:?}"
        );
    }
    // A task answer with a broken task is told against CreateTaskResult.
    let c = Context {
        protocol: Protocol::Mcp,
        version: "2025-11-25",
        direction: C2S,
        in_reply_to: Some("elicitation/create"),
    };
    let r = validate_value(
        &json!({"jsonrpc": "2.0", "id": 3, "result": {"task": {"taskId": 1}}}),
        &c,
        &Limits::default(),
    );
    assert!(
        r.issues.iter().all(|i| i.path.starts_with("/result/task")),
        "{r:?}"
    );
}

/// Every issue code has one spelling, lowercase words joined by `_` (the checks of ACP's rules
/// overlay under `acp.`), and each is listed where users look for it: the `IssueCode` type and
/// docs/validation.md.
#[test]
fn every_issue_code_has_one_spelling_and_is_listed_for_js_and_in_the_docs() {
    let read = |path: &str| {
        std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
            .unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let types = read("js/index.d.ts");
    let union = &types[types.find("export type IssueCode").expect("IssueCode")..];
    let union = &union[..union.find(';').expect("the end of IssueCode")];
    let docs = read("docs/validation.md");
    let one_spelling = |code: &str| code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    for code in codes::ALL {
        assert!(one_spelling(code), "{code}");
        assert!(
            union.contains(&format!("\"{code}\"")),
            "IssueCode lacks {code}"
        );
        assert!(
            docs.contains(&format!("`{code}`")),
            "docs/validation.md lacks {code}"
        );
    }
    // The overlay's verdicts (`A ! 'code' 'text'`, `A ? 'code' 'text'`).
    let overlay = read("src/schema/rules/acp.overlay.rules");
    let mut verdicts = 0;
    for line in overlay.lines().filter(|l| !l.starts_with('#')) {
        for (i, _) in line.match_indices(['!', '?']) {
            let Some(code) = line[i + 1..].trim_start().strip_prefix('\'') else {
                continue;
            };
            let code = &code[..code.find('\'').expect("a closing quote")];
            verdicts += 1;
            let namespaced = code
                .strip_prefix("acp.")
                .is_some_and(|rest| rest.split('.').all(|w| !w.is_empty() && one_spelling(w)));
            assert!(
                codes::ALL.contains(&code) || namespaced,
                "the overlay's code {code:?}"
            );
        }
    }
    assert!(
        verdicts >= 10,
        "the overlay's verdicts were found: {verdicts}"
    );
}

/// A broken envelope is read by one routine: the endpoint's -32600 and the validator's
/// `invalid_envelope` say the same of it, at the member it is about.
#[test]
fn the_endpoint_and_the_validator_say_the_same_of_a_broken_envelope() {
    let cases = [
        (
            r#"7"#,
            "",
            "a message must be a JSON object, not an integer",
        ),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            "/jsonrpc",
            r#""jsonrpc" must be "2.0", not "1.0""#,
        ),
        (
            r#"{"jsonrpc":2,"method":"ping"}"#,
            "/jsonrpc",
            r#""jsonrpc" must be "2.0", not an integer"#,
        ),
        (
            r#"{"id":1,"method":"ping"}"#,
            "/jsonrpc",
            r#""jsonrpc": "2.0" is missing"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":1.5}"#,
            "/method",
            r#""method" must be a string, not a fractional number"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
            "",
            r#"a request or notification must not carry "result" or "error""#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}"#,
            "/params",
            r#""params" must be an object or an array, not a string"#,
        ),
        (
            r#"{"jsonrpc":"2.0"}"#,
            "",
            r#"neither a request (no "method") nor a response (no "id")"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1}"#,
            "",
            r#"a response needs "result" or "error""#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}"#,
            "",
            r#"a response must not carry both "result" and "error""#,
        ),
    ];
    for (text, path, why) in cases {
        let failure = parse(text, &ParseOptions::default()).expect_err(text);
        assert_eq!(failure.error.data, Some(json!(why)), "{text}");
        let report = validate_text(
            text,
            &ctx(Protocol::Mcp, "2025-11-25", C2S, None),
            &Limits::default(),
        );
        let envelope: Vec<(&str, &str)> = report
            .issues
            .iter()
            .filter(|i| i.code == codes::INVALID_ENVELOPE)
            .map(|i| (i.path.as_str(), i.message.as_str()))
            .collect();
        assert_eq!(envelope, [(path, why)], "{text}");
    }
}
