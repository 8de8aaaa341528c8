//! The MCP servers a session was given, as prompt turns use them (`tools`, `use NAME {json}`):
//! servers of type `http` through `McpLink` (blocking), and servers of type `acp` (MCP over
//! ACP, unstable) through the client itself: every MCP message of the core's `McpClient` goes
//! as an `mcp/message` request `{serverId, requestId, method, params}`, answered with
//! `{result}` or `{error}`. A turn's asking is a job that goes server by server; each ACP
//! answer moves it on.

use std::collections::{HashMap, VecDeque};

use agentwire::jsonrpc::{Id, ProtocolError};
use agentwire::mcp::{Event, McpClient, RequestOptions};
use serde_json::{json, Value};

use crate::mcp_link::{client_config, result_text, McpLink};
use crate::script::{McpAnswer, McpAsk, ServerTools};

#[derive(Clone, Debug)]
pub enum Server {
    Http {
        name: String,
        url: String,
        headers: Vec<(String, String)>,
    },
    Acp {
        name: String,
        server_id: String,
    },
}

impl Server {
    fn name(&self) -> &str {
        match self {
            Server::Http { name, .. } | Server::Acp { name, .. } => name,
        }
    }
}

/// The servers of type http and acp in `session/new` or `session/load`.
pub fn servers_of(params: &Value) -> Vec<Server> {
    let servers = params["mcpServers"].as_array().cloned().unwrap_or_default();
    servers
        .iter()
        .filter_map(|s| {
            let name = s["name"].as_str()?.to_owned();
            match s["type"].as_str()? {
                "http" => {
                    let headers = s["headers"].as_array().cloned().unwrap_or_default();
                    let headers = headers
                        .iter()
                        .filter_map(|h| {
                            Some((
                                h["name"].as_str()?.to_owned(),
                                h["value"].as_str()?.to_owned(),
                            ))
                        })
                        .collect();
                    Some(Server::Http {
                        name,
                        url: s["url"].as_str()?.to_owned(),
                        headers,
                    })
                }
                "acp" => Some(Server::Acp {
                    name,
                    server_id: s["serverId"].as_str()?.to_owned(),
                }),
                _ => None,
            }
        })
        .collect()
}

/// What the ACP side must do for a job.
pub enum Action {
    /// Send this request, whose answer nobody waits for.
    Tell(&'static str, Value),
    /// Send this request; the turn waits for its answer (give it to `answered`).
    Request(&'static str, Value),
    /// The job is over: the turn goes on with this answer to what it asked.
    Done(McpAsk, McpAnswer),
}

/// MCP over ACP with one server: the MCP session with it.
struct AcpLink {
    mcp: McpClient,
    ready: bool,
    /// Numbers the `requestId`s of notifications, which have no MCP id.
    notes: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum Stage {
    Initialize,
    List,
    Call,
}

struct Job {
    ask: McpAsk,
    todo: VecDeque<Server>,
    listed: ServerTools,
    /// The acp server being asked, the stage, and the MCP request id it waits on.
    current: Option<(String, Stage, Option<Id>)>,
}

#[derive(Default)]
pub struct McpUse {
    servers: HashMap<String, Vec<Server>>,
    http: HashMap<(String, String), McpLink>,
    acp: HashMap<(String, String), AcpLink>,
    jobs: HashMap<String, Job>,
}

fn tools_of(result: &Value) -> Vec<(String, String)> {
    let tools = result["tools"].as_array().cloned().unwrap_or_default();
    tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or("?").to_owned(),
                t["description"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn tool_answer(result: &Value) -> McpAnswer {
    let text = result_text(result);
    McpAnswer::Result(if result["isError"] == true {
        Err(text)
    } else {
        Ok(text)
    })
}

impl McpUse {
    pub fn set_servers(&mut self, session: &str, params: &Value) {
        self.servers.insert(session.to_owned(), servers_of(params));
    }

    /// Starts asking the session's servers.
    pub fn start(&mut self, session: &str, ask: McpAsk, now_ms: u64) -> Vec<Action> {
        let todo = self
            .servers
            .get(session)
            .cloned()
            .unwrap_or_default()
            .into();
        self.jobs.insert(
            session.to_owned(),
            Job {
                ask,
                todo,
                listed: Vec::new(),
                current: None,
            },
        );
        self.run(session, now_ms)
    }

    /// The turn was cancelled or ended: its job is dropped.
    pub fn drop_job(&mut self, session: &str) {
        self.jobs.remove(session);
    }

    /// Goes on until the job must wait for the client, or is done.
    fn run(&mut self, session: &str, now_ms: u64) -> Vec<Action> {
        loop {
            let next = match self.jobs.get_mut(session) {
                None => return Vec::new(),
                Some(job) if job.current.is_some() => return self.issue(session, now_ms),
                Some(job) => job.todo.pop_front(),
            };
            match next {
                None => {
                    let job = self.jobs.remove(session).expect("present");
                    let answer = match &job.ask {
                        McpAsk::List => McpAnswer::Tools(job.listed),
                        McpAsk::Call { name, .. } => McpAnswer::Result(Err(format!(
                            "no MCP server of this session has a tool named {name}"
                        ))),
                    };
                    return vec![Action::Done(job.ask, answer)];
                }
                Some(Server::Http { name, url, headers }) => {
                    if let Some(done) = self.ask_http(session, &name, &url, headers) {
                        return self.finish(session, done);
                    }
                }
                Some(Server::Acp { name, .. }) => {
                    let link = self
                        .acp
                        .entry((session.to_owned(), name.clone()))
                        .or_insert_with(|| AcpLink {
                            mcp: McpClient::new(client_config()),
                            ready: false,
                            notes: 0,
                        });
                    let stage = if link.ready {
                        Stage::List
                    } else {
                        Stage::Initialize
                    };
                    if let Some(job) = self.jobs.get_mut(session) {
                        job.current = Some((name, stage, None));
                    }
                }
            }
        }
    }

    /// Ends the job with this answer.
    fn finish(&mut self, session: &str, answer: McpAnswer) -> Vec<Action> {
        self.jobs
            .remove(session)
            .map(|job| vec![Action::Done(job.ask, answer)])
            .unwrap_or_default()
    }

    /// An http server, asked at once; `Some` when the job is done with it (the tool was called).
    fn ask_http(
        &mut self,
        session: &str,
        name: &str,
        url: &str,
        headers: Vec<(String, String)>,
    ) -> Option<McpAnswer> {
        let key = (session.to_owned(), name.to_owned());
        let job = self.jobs.get_mut(session)?;
        if !self.http.contains_key(&key) {
            match McpLink::connect(url, headers) {
                Ok(link) => {
                    self.http.insert(key.clone(), link);
                }
                Err(why) => {
                    crate::runner::log(&format!("MCP server {name:?} ({url}): {why}"));
                    job.listed.push((name.to_owned(), Err(why)));
                    return None;
                }
            }
        }
        let link = self.http.get_mut(&key)?;
        let tools = link.list_tools().map(|r| tools_of(&r));
        if let (
            McpAsk::Call {
                name: tool,
                arguments,
                ..
            },
            Ok(tools),
        ) = (&job.ask, &tools)
        {
            if tools.iter().any(|(t, _)| t == tool) {
                return Some(match link.call_tool(tool, arguments.clone()) {
                    Ok(result) => tool_answer(&result),
                    Err(why) => McpAnswer::Result(Err(why)),
                });
            }
        }
        job.listed.push((name.to_owned(), tools));
        None
    }

    /// The request the current acp server's stage needs.
    fn issue(&mut self, session: &str, now_ms: u64) -> Vec<Action> {
        let Some(job) = self.jobs.get_mut(session) else {
            return Vec::new();
        };
        let Some((name, stage, _)) = job.current.clone() else {
            return Vec::new();
        };
        let Some(Server::Acp { server_id, .. }) = self
            .servers
            .get(session)
            .and_then(|all| all.iter().find(|s| s.name() == name))
            .cloned()
        else {
            return Vec::new();
        };
        let Some(link) = self.acp.get_mut(&(session.to_owned(), name.clone())) else {
            return Vec::new();
        };
        let out = match (&stage, &job.ask) {
            (Stage::Initialize, _) => link.mcp.initialize(now_ms),
            (
                Stage::Call,
                McpAsk::Call {
                    name: tool,
                    arguments,
                    ..
                },
            ) => link.mcp.call_tool(
                tool,
                Some(arguments.clone()),
                RequestOptions::default(),
                now_ms,
            ),
            _ => link.mcp.list_tools(None, now_ms),
        };
        match out {
            Ok(out) => {
                job.current = Some((name, stage, out.id.clone()));
                let message: Value = serde_json::from_str(&out.text).unwrap_or_default();
                vec![Action::Request(
                    "mcp/message",
                    wrap(&server_id, &request_id(out.id.as_ref()), &message),
                )]
            }
            Err(e) => {
                job.listed.push((name, Err(e.message)));
                job.current = None;
                self.run(session, now_ms)
            }
        }
    }

    /// The client answered the job's `mcp/message` request.
    pub fn answered(
        &mut self,
        session: &str,
        outcome: Result<Value, ProtocolError>,
        now_ms: u64,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        let Some(job) = self.jobs.get_mut(session) else {
            return actions;
        };
        let Some((name, _, inner)) = job.current.clone() else {
            return actions;
        };
        let Some(server_id) = self.servers.get(session).and_then(|all| {
            all.iter().find_map(|s| match s {
                Server::Acp { name: n, server_id } if *n == name => Some(server_id.clone()),
                _ => None,
            })
        }) else {
            return actions;
        };
        let Some(link) = self.acp.get_mut(&(session.to_owned(), name.clone())) else {
            return actions;
        };
        // The answer as the MCP response it carries (`{result}` or `{error}`), for the MCP session.
        let answer = match outcome {
            Ok(outer) if outer.get("error").is_some_and(Value::is_object) => {
                json!({ "jsonrpc": "2.0", "id": inner, "error": outer["error"] })
            }
            Ok(outer) => {
                json!({ "jsonrpc": "2.0", "id": inner, "result": outer.get("result").cloned().unwrap_or(Value::Null) })
            }
            Err(e) => {
                json!({ "jsonrpc": "2.0", "id": inner, "error": { "code": e.code, "message": e.message } })
            }
        };
        for event in link.mcp.receive(&answer.to_string(), now_ms) {
            match event {
                Event::Send { text } => {
                    let message: Value = serde_json::from_str(&text).unwrap_or_default();
                    // MCP's notifications (initialized, cancelled) travel as requests too; their
                    // answers carry nothing the session needs.
                    if message.get("id").is_none() {
                        link.notes += 1;
                        actions.push(Action::Tell(
                            "mcp/message",
                            wrap(&server_id, &format!("note-{}", link.notes), &message),
                        ));
                    }
                }
                Event::Initialized { .. } => {
                    link.ready = true;
                    job.current = Some((name.clone(), Stage::List, None));
                }
                Event::Response { method, result, .. } if method == "tools/list" => {
                    let tools = tools_of(&result.value());
                    let wanted = matches!(&job.ask, McpAsk::Call { name: tool, .. } if tools.iter().any(|(t, _)| t == tool));
                    if wanted {
                        job.current = Some((name.clone(), Stage::Call, None));
                    } else {
                        job.listed.push((name.clone(), Ok(tools)));
                        job.current = None;
                    }
                }
                Event::Response { method, result, .. } if method == "tools/call" => {
                    actions.extend(self.finish(session, tool_answer(&result.value())));
                    return actions;
                }
                Event::Error { method, error, .. } | Event::Timeout { method, error, .. } => {
                    if method == "tools/call" {
                        actions.extend(self.finish(session, McpAnswer::Result(Err(error.message))));
                        return actions;
                    }
                    fail(job, name.clone(), format!("{method}: {}", error.message));
                }
                _ => {}
            }
        }
        actions.extend(self.run(session, now_ms));
        actions
    }
}

fn fail(job: &mut Job, name: String, why: String) {
    job.listed.push((name, Err(why)));
    job.current = None;
}

/// An MCP request id as the `requestId` of `mcp/message` (a string).
fn request_id(id: Option<&Id>) -> String {
    match id.map(|id| serde_json::to_value(id).unwrap_or_default()) {
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// An MCP message as `mcp/message` params for a server.
fn wrap(server_id: &str, request_id: &str, message: &Value) -> Value {
    let mut params =
        json!({ "serverId": server_id, "requestId": request_id, "method": message["method"] });
    if let Some(p) = message.get("params").filter(|p| !p.is_null()) {
        params["params"] = p.clone();
    }
    params
}
