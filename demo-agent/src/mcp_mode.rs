//! The MCP server: the core's `McpServer` does the protocol (handshake or stateless era,
//! negotiation, gating, validation, cancellation); this answers tools, resources, prompts,
//! logging and completions, runs the `slow` tool step by step, and carries the conformance
//! suite's catalogue (`conformance.rs`).

use crate::conformance::{self, Ask, Note, Plan};
use crate::runner::{log, Driver, Out};
use agentwire::jsonrpc::{codes, Id, ProtocolError};
use agentwire::mcp::{Era, Event, McpServer, ServerConfig};
use serde_json::{json, Value};
use std::collections::{BTreeSet, VecDeque};

const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];
const NAMES: [&str; 6] = ["Ada", "Alan", "Barbara", "Grace", "Linus", "Margaret"];
const README: &str = "# agentwire demo server\n\nTools: echo, add, slow, fail. Resources: demo://readme, demo://counter (subscribe to it), demo://echo/{text}. Prompt: greet.\n";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A `slow` call in progress.
struct Job {
    id: Id,
    token: Option<Value>,
    done: u64,
    steps: u64,
    delay_ms: u64,
    due: u64,
}

/// A conformance tool whose notifications go out one `STEP_MS` apart before its result.
struct Timed {
    id: Id,
    token: Option<Value>,
    notes: VecDeque<Note>,
    result: Value,
    due: u64,
}

pub struct McpDemo {
    server: McpServer,
    /// Tool calls so far: the content of `demo://counter`.
    counter: u64,
    /// Handshake era: `resources/subscribe`d URIs.
    subscribed: BTreeSet<String>,
    /// Stateless era: open `subscriptions/listen` streams and their URIs.
    listeners: Vec<(Id, BTreeSet<String>)>,
    /// Index into `LEVELS` of the lowest level sent.
    level: usize,
    jobs: Vec<Job>,
    timed: Vec<Timed>,
    /// Our requests to the client (sampling, elicitation) → the tool call waiting for them.
    asks: Vec<(Id, Id, Ask)>,
    /// `--conformance`: the suite's catalogue is offered too.
    conformance: bool,
}

type Answer = Result<Value, ProtocolError>;

impl McpDemo {
    pub fn new(versions: Option<Vec<String>>, info: Value, conformance: bool) -> Self {
        let mut config = json!({
            "serverInfo": info,
            "capabilities": { "tools": {}, "resources": { "subscribe": true }, "prompts": {}, "logging": {}, "completions": {} },
            "instructions": "A deterministic demo server: try the echo tool, read demo://readme, subscribe to demo://counter.",
        });
        if let Some(v) = versions {
            config["protocolVersions"] = json!(v);
        }
        let config: ServerConfig = serde_json::from_value(config).unwrap_or_else(|e| {
            log(&format!("server configuration: {e}"));
            ServerConfig::default()
        });
        McpDemo {
            server: McpServer::new(config),
            counter: 0,
            subscribed: BTreeSet::new(),
            listeners: Vec::new(),
            level: 1,
            jobs: Vec::new(),
            timed: Vec::new(),
            asks: Vec::new(),
            conformance,
        }
    }

    fn handle(&mut self, events: Vec<Event>, now_ms: u64, out: &mut Out) {
        for event in events {
            match event {
                Event::Send { text } => out.line(&text),
                Event::Initialized {
                    protocol_version,
                    era,
                    ..
                } => log(&format!("initialized: MCP {protocol_version} ({era:?})")),
                Event::Request { id, method, params } => {
                    let params = params.map_or(Value::Null, |p| p.value());
                    if let Some(answer) = self.serve(&id, &method, &params, now_ms, out) {
                        out.send(self.server.respond(&id, answer));
                    }
                }
                Event::Response { id, result, .. } => self.answered(&id, Ok(&result.value()), out),
                Event::Error { id, error, .. } | Event::Timeout { id, error, .. } => {
                    self.answered(&id, Err(&error.message), out)
                }
                Event::Cancelled { request_id, .. } => {
                    if let Ok(id) = Id::from_value(&request_id) {
                        self.jobs.retain(|j| j.id != id);
                        self.timed.retain(|j| j.id != id);
                        self.asks.retain(|(_, call, _)| *call != id);
                        self.listeners.retain(|(l, _)| *l != id);
                        // Frees the id in the core; nothing goes out for a cancelled request.
                        let _ = self.server.respond(&id, Ok(json!({})));
                    }
                }
                other => log(&format!("{other:?}")),
            }
        }
    }

    /// Part of the conformance catalogue, when it is offered.
    fn catalogue(&self, part: fn() -> Vec<Value>) -> Vec<Value> {
        if self.conformance {
            part()
        } else {
            Vec::new()
        }
    }

    /// The client answered one of our requests: the tool call that asked gets its result.
    fn answered(&mut self, id: &Id, answer: Result<&Value, &str>, out: &mut Out) {
        let Some(i) = self.asks.iter().position(|(asked, _, _)| asked == id) else {
            return;
        };
        let (_, call, ask) = self.asks.remove(i);
        out.send(self.server.respond(&call, Ok(ask.result(answer))));
    }

    /// The answer to a request, or `None` when it is answered later (`slow`, `listen`).
    fn serve(
        &mut self,
        id: &Id,
        method: &str,
        params: &Value,
        now_ms: u64,
        out: &mut Out,
    ) -> Option<Answer> {
        let answer = match method {
            "tools/list" => {
                let mut all = tools().as_array().cloned().unwrap_or_default();
                all.extend(self.catalogue(conformance::tools));
                Ok(json!({ "tools": all }))
            }
            "tools/call" => return self.call_tool(id, params, now_ms, out),
            "resources/list" => {
                let own = [
                    json!({ "uri": "demo://readme", "name": "readme", "description": "What this server offers", "mimeType": "text/markdown" }),
                    json!({ "uri": "demo://counter", "name": "counter", "description": "How many tools were called; changes on every call", "mimeType": "text/plain" }),
                ];
                Ok(
                    json!({ "resources": own.into_iter().chain(self.catalogue(conformance::resources)).collect::<Vec<_>>() }),
                )
            }
            "resources/templates/list" => {
                let own = json!({ "uriTemplate": "demo://echo/{text}", "name": "echo", "description": "Reads back {text}", "mimeType": "text/plain" });
                Ok(
                    json!({ "resourceTemplates": std::iter::once(own).chain(self.catalogue(conformance::templates)).collect::<Vec<_>>() }),
                )
            }
            "resources/read" => uri_of(params).and_then(|uri| self.read(uri)),
            "resources/subscribe" | "resources/unsubscribe" => {
                let uri = match uri_of(params) {
                    Ok(uri) => uri.to_owned(),
                    Err(e) => return Some(Err(e)),
                };
                self.read(&uri).map(|_| {
                    if method == "resources/subscribe" {
                        self.subscribed.insert(uri);
                    } else {
                        self.subscribed.remove(&uri);
                    }
                    json!({})
                })
            }
            "subscriptions/listen" => return self.listen(id, params, out),
            "prompts/list" => {
                let greet = json!({ "name": "greet", "description": "A greeting for someone",
                    "arguments": [{ "name": "name", "description": "Who to greet", "required": true }] });
                Ok(
                    json!({ "prompts": std::iter::once(greet).chain(self.catalogue(conformance::prompts)).collect::<Vec<_>>() }),
                )
            }
            "prompts/get" => match conformance::prompt(
                params["name"].as_str().unwrap_or_default(),
                &params["arguments"],
            )
            .filter(|_| self.conformance)
            {
                Some(answer) => answer.map_err(ProtocolError::invalid_params),
                None => greet(params),
            },
            "logging/setLevel" => match LEVELS
                .iter()
                .position(|l| params["level"].as_str() == Some(*l))
            {
                Some(i) => {
                    self.level = i;
                    Ok(json!({}))
                }
                None => Err(ProtocolError::invalid_params(format!(
                    "level must be one of {LEVELS:?}"
                ))),
            },
            "completion/complete" => Ok(complete(params)),
            _ => Err(ProtocolError::method_not_found(method)),
        };
        Some(answer)
    }

    fn read(&self, uri: &str) -> Answer {
        if let Some(contents) = conformance::read(uri).filter(|_| self.conformance) {
            return Ok(contents);
        }
        let text = match uri {
            "demo://readme" => README.to_owned(),
            "demo://counter" => self.counter.to_string(),
            _ => match uri.strip_prefix("demo://echo/") {
                Some(t) => t.to_owned(),
                None => {
                    return Err(ProtocolError::new(
                        codes::RESOURCE_NOT_FOUND,
                        "Resource not found",
                    )
                    .with_data(json!({ "uri": uri })));
                }
            },
        };
        let mime = if uri == "demo://readme" {
            "text/markdown"
        } else {
            "text/plain"
        };
        Ok(json!({ "contents": [{ "uri": uri, "mimeType": mime, "text": text }] }))
    }

    fn call_tool(&mut self, id: &Id, params: &Value, now_ms: u64, out: &mut Out) -> Option<Answer> {
        let Some(name) = params["name"].as_str() else {
            return Some(Err(ProtocolError::invalid_params(format!(
                "tools/call needs params.name, a string, not {}",
                describe(&params["name"])
            ))));
        };
        let args = &params["arguments"];
        if let Some(plan) = conformance::call(name, args, params["_meta"].get("progressToken"))
            .filter(|_| self.conformance)
        {
            return self.run(
                id,
                plan,
                params["_meta"].get("progressToken").cloned(),
                now_ms,
                out,
            );
        }
        let text = |t: String| json!({ "content": [{ "type": "text", "text": t }] });
        let answer = match name {
            "echo" => match args["message"].as_str() {
                Some(m) => Ok(text(m.to_owned())),
                None => Err(ProtocolError::invalid_params(
                    "echo needs arguments.message, a string",
                )),
            },
            "add" => match (args["a"].as_f64(), args["b"].as_f64()) {
                (Some(a), Some(b)) => Ok(text(format!("{}", a + b))),
                _ => Err(ProtocolError::invalid_params(
                    "add needs arguments.a and arguments.b, numbers",
                )),
            },
            "slow" => {
                let steps = args["steps"].as_u64().unwrap_or(5).clamp(1, 100);
                let delay_ms = args["delayMs"].as_u64().unwrap_or(200).min(10_000);
                let token = params["_meta"].get("progressToken").cloned();
                self.jobs.push(Job {
                    id: id.clone(),
                    token,
                    done: 0,
                    steps,
                    delay_ms,
                    due: now_ms + delay_ms,
                });
                self.counted(name, out);
                return None;
            }
            // A tool that ran and failed: reported in the result, as MCP asks.
            "fail" => Ok(
                json!({ "content": [{ "type": "text", "text": "The fail tool always fails." }], "isError": true }),
            ),
            _ => Err(
                ProtocolError::invalid_params(format!("unknown tool {name:?}"))
                    .with_data(json!({ "name": name })),
            ),
        };
        if answer.is_ok() {
            self.counted(name, out);
        }
        Some(answer)
    }

    /// Runs a conformance tool: at once, step by step, or after asking the client.
    fn run(
        &mut self,
        id: &Id,
        plan: Plan,
        token: Option<Value>,
        now_ms: u64,
        out: &mut Out,
    ) -> Option<Answer> {
        match plan {
            Plan::Done(result) => Some(Ok(result)),
            Plan::Timed(notes, result) => {
                self.timed.push(Timed {
                    id: id.clone(),
                    token,
                    notes: notes.into(),
                    result,
                    due: now_ms,
                });
                None
            }
            Plan::Ask(ask) => match self.server.request(
                ask.method,
                Some(ask.params.clone()),
                Default::default(),
                now_ms,
            ) {
                Ok(sent) => {
                    out.line(&sent.text);
                    if let Some(asked) = sent.id {
                        self.asks.push((asked, id.clone(), ask));
                    }
                    None
                }
                // Not asked (the client lacks the capability): the tool says so.
                Err(e) => Some(Ok(ask.result(Err(&e.message)))),
            },
        }
    }

    /// A tool was called: the counter changes, subscribers and the log hear of it.
    fn counted(&mut self, tool: &str, out: &mut Out) {
        self.counter += 1;
        if self.server.era() == Some(Era::Stateless) {
            let streams: Vec<Id> = self
                .listeners
                .iter()
                .filter(|(_, uris)| uris.contains("demo://counter"))
                .map(|(id, _)| id.clone())
                .collect();
            for id in streams {
                let params = json!({ "uri": "demo://counter", "_meta": { SUBSCRIPTION_ID: id } });
                out.send(
                    self.server
                        .notify("notifications/resources/updated", Some(params)),
                );
            }
            return;
        }
        if self.subscribed.contains("demo://counter") {
            out.send(self.server.notify_resource_updated("demo://counter"));
        }
        if self.level <= 1 {
            out.send(self.server.log(
                "info",
                Some("tools"),
                json!(format!("{tool} called; counter is {}", self.counter)),
            ));
        }
    }

    /// Stateless era: opens a notification stream; it stays open until cancelled.
    fn listen(&mut self, id: &Id, params: &Value, out: &mut Out) -> Option<Answer> {
        let wanted = params["notifications"]["resourceSubscriptions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let uris: BTreeSet<String> = wanted
            .iter()
            .filter_map(Value::as_str)
            .filter(|u| self.read(u).is_ok())
            .map(str::to_owned)
            .collect();
        let params = json!({ "notifications": { "resourceSubscriptions": uris }, "_meta": { SUBSCRIPTION_ID: id } });
        out.send(
            self.server
                .notify("notifications/subscriptions/acknowledged", Some(params)),
        );
        self.listeners.push((id.clone(), uris));
        None
    }
}

impl McpDemo {
    /// The timed conformance tools: the next notification of each one due, or its result.
    fn step_timed(&mut self, now_ms: u64, out: &mut Out) {
        let mut done = Vec::new();
        for t in self.timed.iter_mut().filter(|t| t.due <= now_ms) {
            t.due = now_ms + conformance::STEP_MS;
            match t.notes.pop_front() {
                Some(Note::Log(text)) => {
                    if self.level <= 1 {
                        out.send(self.server.log("info", None, json!(text)));
                    }
                }
                Some(Note::Progress(p)) => {
                    if let Some(token) = &t.token {
                        out.send(self.server.progress(
                            token.clone(),
                            p,
                            Some(100.0),
                            Some(&format!("Completed step {p} of 100")),
                        ));
                    }
                }
                None => done.push(t.id.clone()),
            }
        }
        for id in done {
            if let Some(i) = self.timed.iter().position(|t| t.id == id) {
                let t = self.timed.remove(i);
                out.send(self.server.respond(&t.id, Ok(t.result)));
            }
        }
    }
}

impl Driver for McpDemo {
    fn on_line(&mut self, line: &str, now_ms: u64, out: &mut Out) {
        let events = self.server.receive(line, now_ms);
        self.handle(events, now_ms, out);
    }

    fn on_time(&mut self, now_ms: u64, out: &mut Out) {
        let events = self.server.tick(now_ms);
        self.handle(events, now_ms, out);
        let mut finished = Vec::new();
        for job in self.jobs.iter_mut().filter(|j| j.due <= now_ms) {
            job.done += 1;
            job.due = now_ms + job.delay_ms;
            if let Some(token) = &job.token {
                let message = format!("step {} of {}", job.done, job.steps);
                out.send(self.server.progress(
                    token.clone(),
                    job.done as f64,
                    Some(job.steps as f64),
                    Some(&message),
                ));
            }
            if job.done == job.steps {
                finished.push(job.id.clone());
            }
        }
        for id in finished {
            self.jobs.retain(|j| j.id != id);
            let text = json!({ "content": [{ "type": "text", "text": "slow finished" }] });
            out.send(self.server.respond(&id, Ok(text)));
        }
        self.step_timed(now_ms, out);
    }

    fn next_wake(&self) -> Option<u64> {
        self.jobs
            .iter()
            .map(|j| j.due)
            .chain(self.timed.iter().map(|t| t.due))
            .chain(self.server.next_deadline())
            .min()
    }

    fn on_close(&mut self, out: &mut Out) {
        let events = self.server.close();
        self.handle(events, u64::MAX, out);
    }
}

fn tools() -> Value {
    json!([
        { "name": "echo", "description": "Returns the message it is given",
          "inputSchema": { "type": "object", "properties": { "message": { "type": "string", "description": "What to echo" } }, "required": ["message"] } },
        { "name": "add", "description": "Adds two numbers",
          "inputSchema": { "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number" } }, "required": ["a", "b"] } },
        { "name": "slow", "description": "Takes its time: one progress notification per step (with a progressToken); can be cancelled",
          "inputSchema": { "type": "object", "properties": {
              "steps": { "type": "integer", "minimum": 1, "maximum": 100, "default": 5 },
              "delayMs": { "type": "integer", "minimum": 0, "maximum": 10000, "default": 200 } } } },
        { "name": "fail", "description": "Always fails (a result with isError)", "inputSchema": { "type": "object", "properties": {} } },
    ])
}

fn greet(params: &Value) -> Answer {
    if params["name"].as_str() != Some("greet") {
        return Err(ProtocolError::invalid_params(format!(
            "unknown prompt {}",
            params["name"]
        )));
    }
    let Some(name) = params["arguments"]["name"].as_str() else {
        return Err(ProtocolError::invalid_params(
            "greet needs the argument name",
        ));
    };
    Ok(json!({
        "description": "A greeting",
        "messages": [{ "role": "user", "content": { "type": "text", "text": format!("Please greet {name} warmly.") } }],
    }))
}

fn complete(params: &Value) -> Value {
    let prefix = params["argument"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    let reference = &params["ref"];
    let candidates: &[&str] = match (
        reference["type"].as_str(),
        params["argument"]["name"].as_str(),
    ) {
        (Some("ref/prompt"), Some("name")) if reference["name"] == "greet" => &NAMES,
        (Some("ref/resource"), Some("text")) if reference["uri"] == "demo://echo/{text}" => {
            &["hello", "world"]
        }
        _ => &[],
    };
    let values: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|n| n.to_lowercase().starts_with(&prefix))
        .collect();
    json!({ "completion": { "values": values, "total": values.len(), "hasMore": false } })
}

/// `params.uri`, a string, or -32602 saying what came instead.
fn uri_of(params: &Value) -> Result<&str, ProtocolError> {
    params["uri"].as_str().ok_or_else(|| {
        ProtocolError::invalid_params(format!(
            "params.uri must be a string, not {}",
            describe(&params["uri"])
        ))
    })
}

/// A value as a refusal names it: its JSON type, and the value when it is short.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "missing".to_owned(),
        Value::Number(_) | Value::Bool(_) => format!("{} ({v})", agentwire::jsonrpc::type_name(v)),
        other => agentwire::jsonrpc::type_name(other).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_filters_names_by_prefix() {
        let cases = [
            (
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"}}),
                json!(["Ada", "Alan"]),
            ),
            (
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": ""}}),
                json!(NAMES),
            ),
            (
                json!({"ref": {"type": "ref/resource", "uri": "demo://echo/{text}"}, "argument": {"name": "text", "value": "w"}}),
                json!(["world"]),
            ),
            (
                json!({"ref": {"type": "ref/prompt", "name": "other"}, "argument": {"name": "name", "value": "a"}}),
                json!([]),
            ),
        ];
        for (params, want) in cases {
            assert_eq!(complete(&params)["completion"]["values"], want, "{params}");
        }
    }

    #[test]
    fn tool_schemas_are_objects() {
        for t in tools().as_array().unwrap() {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        }
    }
}
