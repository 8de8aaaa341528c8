//! ACP over HTTP at `/acp/<agent>`, over raw HTTP/1.1 against a small stdio ACP agent
//! (fixtures/mini-acp.mjs): the connection and session streams and what goes on each, the
//! WebSocket upgrade of the same endpoint, and hostile clients (no token, a foreign Origin,
//! an oversized body, an unknown connection, a client that never reads its stream).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::http::{request, Answer, JSON};
use common::*;
use serde_json::{json, Value};

const SSE: (&str, &str) = ("accept", "text/event-stream");
const BEARER: (&str, &str) = ("authorization", "Bearer test-token-0123456789");
const PATH: &str = "/acp/mini";

fn agent() -> String {
    format!(
        "mini=node {}",
        repo().join("relay/tests/fixtures/mini-acp.mjs").display()
    )
}

fn relay(extra: &[&str]) -> Relay {
    let agent = agent();
    let mut args = vec!["--agent", agent.as_str()];
    args.extend_from_slice(extra);
    Relay::start(&args)
}

fn init(id: u64, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params}).to_string()
}

fn call(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn prompt(id: u64, session: &str, text: &str) -> String {
    call(
        id,
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
    )
}

/// A new connection: its id.
fn connect(port: u16) -> String {
    let a = request(
        port,
        "POST",
        PATH,
        &[BEARER, JSON],
        &init(1, json!({"protocolVersion": 1})),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let id = a.header("acp-connection-id").expect("a connection id");
    assert_eq!(a.json()["result"]["connectionId"], json!(id));
    id.to_string()
}

fn post(port: u16, conn: &str, session: Option<&str>, body: &str) -> Answer {
    let mut headers = vec![BEARER, JSON, ("acp-connection-id", conn)];
    headers.extend(session.map(|s| ("acp-session-id", s)));
    request(port, "POST", PATH, &headers, body)
}

fn agents(relay: &Relay) -> usize {
    children_of(relay.pid()).len()
}

fn until(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + FRAME_TIMEOUT;
    while !check() {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An open event stream, read as its events come.
struct Stream {
    socket: TcpStream,
    status: u16,
    head: String,
    buf: String,
}

impl Stream {
    fn open(port: u16, conn: &str, session: Option<&str>) -> Stream {
        let mut socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
        socket.set_read_timeout(Some(FRAME_TIMEOUT)).unwrap();
        let session = session
            .map(|s| format!("Acp-Session-Id: {s}\r\n"))
            .unwrap_or_default();
        write!(socket, "GET {PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\nAccept: text/event-stream\r\nAcp-Connection-Id: {conn}\r\n{session}\r\n").unwrap();
        let mut raw = Vec::new();
        let mut byte = [0u8; 1];
        while !raw.ends_with(b"\r\n\r\n") {
            assert_eq!(socket.read(&mut byte).unwrap(), 1, "the head comes whole");
            raw.push(byte[0]);
        }
        let head = String::from_utf8(raw).unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        Stream {
            socket,
            status,
            head,
            buf: String::new(),
        }
    }

    /// The next message (`data:` of the next event), or None when the stream ends.
    fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(start) = self.buf.find("data: ") {
                if let Some(len) = self.buf[start..].find("\n\n") {
                    let data = self.buf[start + 6..start + len].to_string();
                    self.buf.drain(..start + len + 2);
                    return Some(serde_json::from_str(&data).expect("JSON data"));
                }
            }
            let mut chunk = [0u8; 16 * 1024];
            let n = self.socket.read(&mut chunk).expect("an event in time");
            if n == 0 {
                return None;
            }
            self.buf.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    }
}

#[test]
fn initialize_then_streams_carry_each_message_where_the_rfd_says() {
    let relay = relay(&[]);
    let port = relay.port;
    let conn = connect(port);
    assert!(
        conn.len() >= 32 && conn.bytes().all(|b| b.is_ascii_hexdigit()),
        "an unguessable id: {conn}"
    );
    let mut main = Stream::open(port, &conn, None);
    assert_eq!(main.status, 200, "{}", main.head);
    assert!(main
        .head
        .to_ascii_lowercase()
        .contains("content-type: text/event-stream"));

    // session/new: 202, its answer on the connection's stream.
    let a = post(
        port,
        &conn,
        None,
        &call(2, "session/new", json!({"cwd": "/", "mcpServers": []})),
    );
    assert_eq!((a.status, a.body.as_str()), (202, ""));
    assert_eq!(main.next().unwrap()["result"]["sessionId"], "s1");
    let mut s1 = Stream::open(port, &conn, Some("s1"));
    assert_eq!(s1.status, 200);

    // A prompt with a permission request: everything of the session on its stream.
    assert_eq!(
        post(port, &conn, Some("s1"), &prompt(3, "s1", "ask")).status,
        202
    );
    let asked = s1.next().unwrap();
    assert_eq!(asked["method"], "session/request_permission");
    assert_eq!(asked["id"], "ask-1");
    let answer = json!({"jsonrpc": "2.0", "id": "ask-1", "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}});
    // The answer to a session's request must name that session.
    assert_eq!(post(port, &conn, None, &answer.to_string()).status, 400);
    assert_eq!(
        post(port, &conn, Some("s2"), &answer.to_string()).status,
        400
    );
    assert_eq!(
        post(port, &conn, Some("s1"), &answer.to_string()).status,
        202
    );
    let update = s1.next().unwrap();
    assert_eq!(update["method"], "session/update");
    assert!(update["params"]["update"]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("allow"));
    assert_eq!(
        s1.next().unwrap(),
        json!({"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}})
    );

    // A message naming no session goes on the connection's stream, and nothing of the
    // session's went there before it.
    assert_eq!(
        post(port, &conn, None, &call(4, "ping", json!({}))).status,
        202
    );
    assert_eq!(main.next().unwrap()["method"], "note");
    assert_eq!(
        main.next().unwrap(),
        json!({"jsonrpc": "2.0", "id": 4, "result": {}})
    );

    // session/load: the replay on the session's stream, its answer on the connection's.
    let load = call(
        5,
        "session/load",
        json!({"sessionId": "s1", "cwd": "/", "mcpServers": []}),
    );
    assert_eq!(post(port, &conn, Some("s1"), &load).status, 202);
    assert_eq!(
        s1.next().unwrap()["params"]["update"]["content"]["text"],
        "replayed"
    );
    assert_eq!(
        main.next().unwrap(),
        json!({"jsonrpc": "2.0", "id": 5, "result": {}})
    );

    // One reader per stream.
    assert_eq!(Stream::open(port, &conn, None).status, 409);
    assert_eq!(Stream::open(port, &conn, Some("s1")).status, 409);
    assert_eq!(agents(&relay), 1, "one process for the connection");

    // DELETE: 202, the streams end, the process is gone, the id means nothing after.
    let a = request(
        port,
        "DELETE",
        PATH,
        &[BEARER, ("acp-connection-id", &conn)],
        "",
    );
    assert_eq!(a.status, 202);
    assert_eq!(main.next(), None);
    assert_eq!(s1.next(), None);
    until("the process ended", || agents(&relay) == 0);
    assert_eq!(
        post(port, &conn, None, &call(6, "ping", json!({}))).status,
        404
    );
    assert_eq!(Stream::open(port, &conn, None).status, 404);
}

#[test]
fn a_session_stream_keeps_messages_until_its_reader_comes() {
    let relay = relay(&[]);
    let port = relay.port;
    let conn = connect(port);
    // The session's stream is opened only after its prompt was answered.
    assert_eq!(
        post(port, &conn, Some("s9"), &prompt(2, "s9", "hello")).status,
        202
    );
    std::thread::sleep(Duration::from_millis(300));
    let mut s9 = Stream::open(port, &conn, Some("s9"));
    assert_eq!(
        s9.next().unwrap()["params"]["update"]["content"]["text"],
        "echo hello"
    );
    assert_eq!(s9.next().unwrap()["id"], 2);
    // And the connection's stream keeps what came before it was opened.
    assert_eq!(
        post(port, &conn, None, &call(3, "ping", json!({}))).status,
        202
    );
    std::thread::sleep(Duration::from_millis(300));
    let mut main = Stream::open(port, &conn, None);
    assert_eq!(main.next().unwrap()["method"], "note");
    assert_eq!(main.next().unwrap()["id"], 3);
}

#[test]
fn bad_input_gets_the_status_the_rfd_names() {
    let relay = relay(&["--max-message-bytes", "4096"]);
    let port = relay.port;
    let conn = connect(port);
    let status = |a: Answer| (a.status, a.json()["error"]["code"].clone());
    let ping = call(2, "ping", json!({}));
    // No Acp-Connection-Id on a message that is not initialize; an unknown one.
    assert_eq!(
        status(request(port, "POST", PATH, &[BEARER, JSON], &ping)),
        (400, json!(-32600))
    );
    let unknown = "0".repeat(64);
    assert_eq!(post(port, &unknown, None, &ping).status, 404);
    assert_eq!(post(port, "short", None, &ping).status, 404);
    assert_eq!(Stream::open(port, &unknown, None).status, 404);
    let a = request(
        port,
        "DELETE",
        PATH,
        &[BEARER, ("acp-connection-id", &unknown)],
        "",
    );
    assert_eq!(a.status, 404);
    assert_eq!(request(port, "DELETE", PATH, &[BEARER], "").status, 400);
    assert_eq!(request(port, "GET", PATH, &[BEARER, SSE], "").status, 400);
    // Content negotiation.
    let a = request(
        port,
        "POST",
        PATH,
        &[
            BEARER,
            ("content-type", "text/plain"),
            ("acp-connection-id", &conn),
        ],
        &ping,
    );
    assert_eq!(a.status, 415);
    let a = request(
        port,
        "GET",
        PATH,
        &[
            BEARER,
            ("accept", "application/json"),
            ("acp-connection-id", &conn),
        ],
        "",
    );
    assert_eq!(a.status, 406);
    // Not JSON, not JSON-RPC, a batch, initialize on a connection.
    assert_eq!(
        status(post(port, &conn, None, "{nope")),
        (400, json!(-32700))
    );
    assert_eq!(
        status(post(port, &conn, None, r#"{"id":1}"#)),
        (400, json!(-32600))
    );
    assert_eq!(
        status(post(port, &conn, None, &format!("[{ping}]"))),
        (501, json!(-32600))
    );
    assert_eq!(post(port, &conn, None, &init(9, json!({}))).status, 400);
    // Session scope: a session method without Acp-Session-Id, or naming another session.
    assert_eq!(post(port, &conn, None, &prompt(3, "s1", "hi")).status, 400);
    assert_eq!(
        post(port, &conn, Some("s2"), &prompt(3, "s1", "hi")).status,
        400
    );
    assert_eq!(
        post(
            port,
            &conn,
            Some("s1"),
            &call(3, "session/cancel", json!({}))
        )
        .status,
        202
    );
    let long = "s".repeat(2000);
    assert_eq!(
        post(port, &conn, Some(&long), &prompt(3, &long, "hi")).status,
        400
    );
    // A request id longer than 1024 characters is not kept (nor echoed).
    let long_id = json!({"jsonrpc": "2.0", "id": "i".repeat(1025), "method": "ping"});
    let a = post(port, &conn, None, &long_id.to_string());
    assert_eq!(a.status, 400);
    assert!(a.body.len() < 200, "{}", a.body);
    // A request id still unanswered on this connection.
    assert_eq!(
        post(port, &conn, Some("s1"), &prompt(4, "s1", "hold")).status,
        202
    );
    let a = post(port, &conn, Some("s1"), &prompt(4, "s1", "again"));
    assert_eq!(a.status, 400, "{}", a.body);
    assert!(a.body.contains("still unanswered"), "{}", a.body);
    // Oversized: announced, or sent without a length.
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"x","params":"{}"}}"#,
        "x".repeat(5000)
    );
    assert_eq!(post(port, &conn, None, &big).status, 413);
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(FRAME_TIMEOUT)).unwrap();
    write!(s, "POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAcp-Connection-Id: {conn}\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
    for _ in 0..3 {
        let _ = write!(s, "800\r\n{}\r\n", "x".repeat(0x800));
    }
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    assert!(
        String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 413"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    // The connection still works, and only the one process ran.
    assert_eq!(post(port, &conn, None, &ping).status, 202);
    assert_eq!(agents(&relay), 1);
}

#[test]
fn guards_answer_before_any_body_byte_and_spawn_nothing() {
    let relay = relay(&["--allow-origin", "http://ok.example"]);
    let port = relay.port;
    let body = init(1, json!({}));
    let guarded = |headers: &[(&str, &str)]| request(port, "POST", PATH, headers, &body).status;
    assert_eq!(guarded(&[JSON]), 401);
    assert_eq!(guarded(&[JSON, ("authorization", "Bearer wrong")]), 401);
    // A cookie is no credential: a browser would attach it to any page's request.
    assert_eq!(guarded(&[JSON, ("cookie", &format!("token={TOKEN}"))]), 401);
    assert_eq!(
        guarded(&[JSON, BEARER, ("origin", "http://evil.example")]),
        403
    );
    assert_eq!(guarded(&[JSON, BEARER, ("host", "evil.example")]), 403);
    assert_eq!(
        request(port, "POST", "/acp/nobody", &[JSON, BEARER], &body).status,
        404
    );
    // The refusal comes while the announced body is still unsent.
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(FRAME_TIMEOUT)).unwrap();
    write!(s, "POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n").unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 401");
    assert_eq!(agents(&relay), 0, "nothing was spawned");
    // An allowed Origin gets in, with CORS headers that expose the connection id.
    let a = request(
        port,
        "POST",
        PATH,
        &[JSON, BEARER, ("origin", "http://ok.example")],
        &body,
    );
    assert_eq!(a.status, 200);
    assert_eq!(
        a.header("access-control-expose-headers"),
        Some("acp-connection-id")
    );
    assert_eq!(a.header("access-control-allow-credentials"), Some("true"));
    // The preflight of a page that sends the ACP headers.
    let pre = request(
        port,
        "OPTIONS",
        PATH,
        &[
            ("origin", "http://ok.example"),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "acp-connection-id, acp-session-id, authorization",
            ),
        ],
        "",
    );
    assert_eq!(pre.status, 204);
    let allowed = pre.header("access-control-allow-headers").unwrap();
    assert!(
        allowed.contains("acp-connection-id") && allowed.contains("acp-session-id"),
        "{allowed}"
    );
    assert_eq!(pre.header("access-control-allow-credentials"), Some("true"));
    // The token in the query, for clients that cannot set headers.
    let a = request(
        port,
        "POST",
        &format!("{PATH}?token={TOKEN}"),
        &[JSON],
        &body,
    );
    assert_eq!(a.status, 200);
    // An initialize the agent refuses: its error, no connection, no process left.
    let a = request(
        port,
        "POST",
        PATH,
        &[JSON, BEARER],
        &init(1, json!({"refuse": true})),
    );
    assert_eq!(
        (a.status, a.json()["error"]["code"].clone()),
        (200, json!(-32602))
    );
    assert!(a.header("acp-connection-id").is_none());
    until("only the two connections' processes are left", || {
        agents(&relay) == 2
    });
}

#[test]
fn an_agent_that_exits_answers_what_was_owed_and_its_id_is_gone() {
    let relay = relay(&[]);
    let port = relay.port;
    let conn = connect(port);
    let mut main = Stream::open(port, &conn, None);
    assert_eq!(
        post(port, &conn, None, &call(7, "exit", json!({}))).status,
        202
    );
    let owed = main.next().unwrap();
    assert_eq!(
        (owed["id"].clone(), owed["error"]["code"].clone()),
        (json!(7), json!(-32603))
    );
    assert_eq!(main.next(), None, "the stream ends");
    until("the id is gone", || {
        post(port, &conn, None, &call(8, "ping", json!({}))).status == 404
    });
    assert!(relay.logs("its process exited"));
}

#[test]
fn an_unused_connection_is_reaped_and_a_hung_initialize_is_answered() {
    let relay = relay(&["--session-idle-ms", "400", "--request-timeout-ms", "1500"]);
    let port = relay.port;
    let conn = connect(port);
    until("the idle connection ended", || agents(&relay) == 0);
    assert_eq!(
        post(port, &conn, None, &call(2, "ping", json!({}))).status,
        404
    );
    // An agent that never answers initialize: 504 with the JSON-RPC error, in time.
    let started = Instant::now();
    let a = request(
        port,
        "POST",
        PATH,
        &[JSON, BEARER],
        &init(3, json!({"hang": true})),
    );
    assert_eq!((a.status, a.json()["id"].clone()), (504, json!(3)));
    assert!(started.elapsed() < Duration::from_secs(3));
    until("its process ended", || agents(&relay) == 0);
}

#[test]
fn a_client_that_never_reads_its_stream_holds_bounded_memory_and_loses_its_connection() {
    // 1 MiB + 64 KiB a message unit, so the relay keeps at most about 2 MiB per connection.
    let relay = relay(&["--max-message-bytes", "4096", "--session-idle-ms", "2000"]);
    let port = relay.port;
    let conn = connect(port);
    let before = rss_kib(relay.pid());
    // A reader that takes the head and then nothing; 40 MB of updates.
    let idle = Stream::open(port, &conn, Some("s1"));
    assert_eq!(idle.status, 200);
    assert_eq!(
        post(
            port,
            &conn,
            Some("s1"),
            &prompt(2, "s1", "flood 20000 2000")
        )
        .status,
        202
    );
    let mut peak = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !relay.stderr.lock().unwrap().contains("took none of") {
        assert!(
            Instant::now() < deadline,
            "the stalled connection never ended"
        );
        peak = peak.max(rss_kib(relay.pid()));
        std::thread::sleep(Duration::from_millis(50));
    }
    let grew = peak.saturating_sub(before);
    eprintln!("relay RSS grew {grew} KiB while its client read nothing");
    assert!(
        grew < 24 * 1024,
        "the relay held {grew} KiB for a client that reads nothing"
    );
    until("the agent was ended", || agents(&relay) == 0);
    drop(idle);
    assert_eq!(
        post(port, &conn, None, &call(3, "ping", json!({}))).status,
        404
    );
}

#[tokio::test]
async fn the_same_endpoint_upgrades_to_a_websocket() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let relay = relay(&[]);
    let url = format!("ws://127.0.0.1:{}{PATH}?token={TOKEN}", relay.port);
    let (mut ws, answer) = tokio_tungstenite::connect_async(url.as_str())
        .await
        .unwrap();
    assert_eq!(answer.status(), 101);
    let id = answer
        .headers()
        .get("acp-connection-id")
        .expect("the connection named");
    assert!(id.len() >= 32);
    ws.send(Message::text(init(1, json!({})))).await.unwrap();
    let reply = tokio::time::timeout(FRAME_TIMEOUT, ws.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let reply: Value = serde_json::from_str(reply.to_text().unwrap()).unwrap();
    assert_eq!(reply["result"]["protocolVersion"], 1);
    assert_eq!(agents(&relay), 1);
    drop(ws);
    assert_eq!(
        none_left_within(FRAME_TIMEOUT, || agents(&relay)).await,
        0,
        "the agent ends with the socket"
    );
    // The guards hold for the upgrade too.
    let bad = format!("ws://127.0.0.1:{}{PATH}?token=wrong", relay.port);
    assert!(tokio_tungstenite::connect_async(bad.as_str())
        .await
        .is_err());
}

#[test]
fn a_stream_dropped_mid_turn_loses_nothing_still_queued() {
    let relay = relay(&[]);
    let port = relay.port;
    let conn = connect(port);
    let mut s1 = Stream::open(port, &conn, Some("s1"));
    assert_eq!(
        post(port, &conn, Some("s1"), &prompt(2, "s1", "hold")).status,
        202
    );
    assert_eq!(
        post(port, &conn, Some("s1"), &prompt(3, "s1", "hi")).status,
        202
    );
    assert_eq!(
        s1.next().unwrap()["params"]["update"]["content"]["text"],
        "echo hi"
    );
    assert_eq!(s1.next().unwrap()["id"], 3);
    // The client's stream is killed mid-turn; the turn ends while nobody reads.
    drop(s1);
    // (The relay notices a closed socket at once; a message written to it before is lost:
    // there is no replay in the RFD's v1.)
    std::thread::sleep(Duration::from_millis(200));
    let cancel =
        json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s1"}});
    assert_eq!(
        post(port, &conn, Some("s1"), &cancel.to_string()).status,
        202
    );
    let started = Instant::now();
    let mut again = Stream::open(port, &conn, Some("s1"));
    while again.status == 409 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the dropped reader was never noticed"
        );
        std::thread::sleep(Duration::from_millis(50));
        again = Stream::open(port, &conn, Some("s1"));
    }
    eprintln!(
        "the dropped reader was noticed after {:?}",
        started.elapsed()
    );
    assert_eq!(again.status, 200);
    assert_eq!(
        again.next().unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "cancelled"}})
    );
}

#[test]
fn when_every_slot_is_taken_the_connection_idle_longest_without_a_stream_makes_room() {
    let relay = relay(&["--max-connections", "1"]);
    let port = relay.port;
    let left = connect(port); // a client that left without DELETE
    let kept = connect(port);
    assert_eq!(
        post(port, &left, None, &call(2, "ping", json!({}))).status,
        404
    );
    assert!(relay.logs("idle longest"));
    // A connection whose client reads its stream is not taken.
    let mut main = Stream::open(port, &kept, None);
    let a = request(port, "POST", PATH, &[BEARER, JSON], &init(1, json!({})));
    assert_eq!(a.status, 503, "{}", a.body);
    assert_eq!(
        post(port, &kept, None, &call(3, "ping", json!({}))).status,
        202
    );
    assert_eq!(main.next().unwrap()["method"], "note");
    until("one process", || agents(&relay) == 1);
}

#[test]
fn unanswered_requests_are_capped_per_connection() {
    let relay = relay(&[]);
    let port = relay.port;
    let conn = connect(port);
    // The agent answers none of these; the relay tracks 1024, then says so.
    for id in 0..1024 {
        let a = post(port, &conn, None, &call(100 + id, "never", json!({})));
        assert_eq!(a.status, 202, "{}", a.body);
    }
    let a = post(port, &conn, None, &call(5000, "never", json!({})));
    assert_eq!(
        (a.status, a.json()["error"]["code"].clone()),
        (503, json!(-32600))
    );
    // Notifications and other connections are not held back.
    let note = json!({"jsonrpc": "2.0", "method": "note", "params": {}});
    assert_eq!(post(port, &conn, None, &note.to_string()).status, 202);
    let other = connect(port);
    assert_eq!(
        post(port, &other, None, &call(1, "never", json!({}))).status,
        202
    );
}

#[test]
fn an_agent_naming_more_sessions_than_the_cap_loses_nothing() {
    let relay = relay(&[]);
    let port = relay.port;
    let conn = connect(port);
    let mut s1 = Stream::open(port, &conn, Some("s1"));
    // s1 and x0 … x62 take the 64 session streams; x63 … x99 go on the connection's.
    assert_eq!(
        post(port, &conn, Some("s1"), &prompt(2, "s1", "spread 100")).status,
        202
    );
    assert_eq!(s1.next().unwrap()["id"], 2);
    let mut main = Stream::open(port, &conn, None);
    for i in 63..100 {
        let m = main.next().unwrap();
        assert_eq!(m["params"]["sessionId"], format!("x{i}"));
    }
    let mut x5 = Stream::open(port, &conn, Some("x5"));
    assert_eq!(
        x5.next().unwrap()["params"]["update"]["content"]["text"],
        "to x5"
    );
    assert_eq!(Stream::open(port, &conn, Some("y")).status, 503);
    assert!(relay.logs("64 session streams"));
}

#[test]
fn acp_alone_is_the_default_agent() {
    let relay = relay(&["--agent", "other=cat"]);
    let a = request(
        relay.port,
        "POST",
        "/acp",
        &[BEARER, JSON],
        &init(1, json!({})),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let conn = a.header("acp-connection-id").unwrap().to_string();
    // The connection belongs to the agent it was made for: on another path its id is unknown.
    let ping = call(2, "ping", json!({}));
    let other = request(
        relay.port,
        "POST",
        "/acp/other",
        &[BEARER, JSON, ("acp-connection-id", &conn)],
        &ping,
    );
    assert_eq!(other.status, 404);
    let a = request(
        relay.port,
        "POST",
        "/acp",
        &[BEARER, JSON, ("acp-connection-id", &conn)],
        &ping,
    );
    assert_eq!(a.status, 202);
}

#[test]
fn open_streams_are_capped_across_the_relay() {
    let relay = relay(&[]);
    let port = relay.port;
    // 128 streams in all (with MCP's): two connections of 64 each fill them.
    let mut open = Vec::new();
    for _ in 0..2 {
        let conn = connect(port);
        open.push(Stream::open(port, &conn, None));
        for i in 0..63 {
            let s = Stream::open(port, &conn, Some(&format!("s{i}")));
            assert_eq!(s.status, 200, "{}", s.head);
            open.push(s);
        }
    }
    let conn = connect(port);
    assert_eq!(Stream::open(port, &conn, None).status, 503);
    // One closes: its place is free again.
    drop(open.pop());
    until("a place is free", || {
        Stream::open(port, &conn, None).status == 200
    });
}

#[test]
fn the_relay_shutting_down_ends_every_connection_and_its_process() {
    let mut relay = relay(&[]);
    let conn = connect(relay.port);
    let mut main = Stream::open(relay.port, &conn, None);
    let pids = children_of(relay.pid());
    assert_eq!(pids.len(), 1);
    assert!(relay.terminate().is_some(), "the relay exits on SIGTERM");
    assert_eq!(main.next(), None, "the stream ends");
    until("the agent is gone", || !alive(pids[0]));
}

#[test]
fn a_line_to_an_agent_that_does_not_read_is_written_whole_even_when_its_request_is_cut_off() {
    let relay = relay(&["--request-timeout-ms", "1000"]);
    let port = relay.port;
    let conn = connect(port);
    let mut main = Stream::open(port, &conn, None);
    assert_eq!(
        post(port, &conn, None, &call(2, "pause", json!({"ms": 3000}))).status,
        202
    );
    assert_eq!(main.next().unwrap()["id"], 2);
    // 300 KB: more than the pipe holds while the agent reads nothing. The request is cut off
    // at its deadline (1 s) with its line half written.
    let big = call(3, "size", json!({"pad": "x".repeat(300_000)}));
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(FRAME_TIMEOUT)).unwrap();
    write!(s, "POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAcp-Connection-Id: {conn}\r\nContent-Length: {}\r\n\r\n{big}", big.len()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    assert!(
        raw.is_empty(),
        "no answer while the agent reads nothing: {}",
        String::from_utf8_lossy(&raw)
    );
    // Once the agent reads again, the whole line reaches it, and the next one after it.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        post(port, &conn, None, &call(4, "ping", json!({}))).status,
        202
    );
    let sized = main.next().unwrap();
    assert_eq!(sized["id"], 3, "{sized}");
    assert_eq!(sized["result"]["length"], json!(big.len()));
    assert_eq!(main.next().unwrap()["method"], "note");
    assert_eq!(main.next().unwrap()["id"], 4);
}
