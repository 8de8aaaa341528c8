//! The demo agent as an MCP client of a server its client names in `session/new` (type
//! `http`, such as a page's own tools hosted by the relay). agentwire's `McpClient` speaks MCP
//! and its `HttpClient` plans the Streamable HTTP; this performs the plans over plain HTTP/1.1,
//! blocking: a turn that uses a tool waits for it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use agentwire::mcp::http::{HttpClient, Item, Plan, Reply};
use agentwire::mcp::{Event, McpClient, RequestOptions};
use serde_json::{json, Value};

/// How long one HTTP exchange may take (a tool of the page may ask its user).
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest body or event read.
const LIMIT: usize = 4 << 20;

pub struct McpLink {
    /// `host:port` and the path of the server's URL.
    authority: String,
    path: String,
    headers: Vec<(String, String)>,
    mcp: McpClient,
    http: HttpClient,
    start: Instant,
}

/// What the server answered to one of our requests.
pub type Answer = Result<Value, String>;

impl McpLink {
    /// Connects and initializes: `url` is `http://host:port/path`.
    pub fn connect(url: &str, headers: Vec<(String, String)>) -> Result<Self, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url}: only http:// URLs are reached (no TLS here)"))?;
        let (authority, path) = rest
            .split_once('/')
            .map(|(a, p)| (a.to_string(), format!("/{p}")))
            .unwrap_or((rest.to_string(), "/".into()));
        let mut link = McpLink {
            authority,
            path,
            headers,
            mcp: McpClient::new(client_config()),
            http: HttpClient::new(LIMIT),
            start: Instant::now(),
        };
        let out = link.mcp.initialize(0).map_err(|e| e.message)?;
        link.ask(&out.text, "initialize").map(|_| link)
    }

    pub fn list_tools(&mut self) -> Answer {
        let out = self
            .mcp
            .list_tools(None, self.now())
            .map_err(|e| e.message)?;
        self.ask(&out.text, "tools/list")
    }

    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Answer {
        let out = self
            .mcp
            .call_tool(name, Some(arguments), RequestOptions::default(), self.now())
            .map_err(|e| e.message)?;
        self.ask(&out.text, "tools/call")
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Posts `text` (a request for `method`) and follows what comes back until it is answered.
    fn ask(&mut self, text: &str, method: &str) -> Answer {
        let mut outgoing = vec![text.to_string()];
        let mut answer = None;
        while let Some(next) = outgoing.pop() {
            for event in self.post(&next)? {
                match event {
                    Event::Send { text } => outgoing.push(text),
                    Event::Initialized { .. } if method == "initialize" => {
                        answer = Some(Ok(Value::Null))
                    }
                    Event::Response {
                        method: m, result, ..
                    } if m == method => answer = Some(Ok(result.value())),
                    Event::Error {
                        method: m, error, ..
                    }
                    | Event::Timeout {
                        method: m, error, ..
                    } if m == method => answer = Some(Err(error.message)),
                    Event::Request { id, method, .. } => {
                        // The demo agent offers no client features (sampling, elicitation, roots).
                        let refusal = agentwire::jsonrpc::ProtocolError::new(
                            -32601,
                            format!("the demo agent does not answer {method}"),
                        );
                        if let Ok(out) = self.mcp.respond(&id, Err(refusal)) {
                            outgoing.push(out.text);
                        }
                    }
                    _ => {}
                }
            }
        }
        answer.unwrap_or_else(|| Err(format!("{method} was not answered")))
    }

    /// One message to the server; the events the session made of everything it got back.
    fn post(&mut self, text: &str) -> Result<Vec<Event>, String> {
        let plan = self.http.post(text);
        let mut reader = self.send(&plan, text)?;
        let (status, headers) = read_head(&mut reader)?;
        let find = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let chunked = find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
        let mut body = Body {
            reader,
            chunked,
            left: find("content-length").and_then(|v| v.parse().ok()),
            carry: Vec::new(),
        };
        let mut texts = Vec::new();
        match self.http.response(plan.stream, status, find("content-type"), find("mcp-session-id")) {
            Reply::Json => texts = self.http.body(plan.stream, &body.all()?),
            Reply::Events => {
                while let Some(piece) = body.next()? {
                    match self.http.chunk(plan.stream, &piece) {
                        Ok(items) => texts.extend(items.into_iter().filter_map(|i| match i {
                            Item::Message { text, .. } => Some(text),
                            Item::Endpoint(_) => None,
                        })),
                        Err(failed) => {
                            texts.extend(failed);
                            break;
                        }
                    }
                }
                if let agentwire::mcp::http::End::Failed(owed) = self.http.end(plan.stream, false) {
                    texts.extend(owed);
                }
            }
            Reply::Empty => {}
            Reply::Failed => texts = self.http.failed(plan.stream, status, &body.all().unwrap_or_default()),
            Reply::Legacy => return Err("the server speaks only the 2024-11-05 HTTP+SSE transport, which the demo agent does not".into()),
        }
        let now = self.now();
        Ok(texts
            .iter()
            .flat_map(|t| self.mcp.receive(t, now))
            .collect())
    }

    fn send(&self, plan: &Plan, body: &str) -> Result<BufReader<TcpStream>, String> {
        let mut stream =
            TcpStream::connect(&self.authority).map_err(|e| format!("{}: {e}", self.authority))?;
        stream
            .set_read_timeout(Some(EXCHANGE_TIMEOUT))
            .map_err(|e| e.to_string())?;
        let path = plan.url.clone().unwrap_or_else(|| self.path.clone());
        let mut head = format!(
            "{} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
            plan.method,
            self.authority,
            body.len()
        );
        for (k, v) in plan
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .chain(self.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        stream
            .write_all(format!("{head}\r\n{body}").as_bytes())
            .map_err(|e| e.to_string())?;
        Ok(BufReader::new(stream))
    }
}

/// The status line and headers (names in lower case).
fn read_head(reader: &mut BufReader<TcpStream>) -> Result<(u16, Vec<(String, String)>), String> {
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an HTTP answer: {line:?}"))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let Some((k, v)) = line.trim_end().split_once(':') else {
            break;
        };
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    Ok((status, headers))
}

/// A response body, read in the pieces it arrives in (chunked, sized, or to the end).
struct Body {
    reader: BufReader<TcpStream>,
    chunked: bool,
    left: Option<usize>,
    /// The start of a character split between two pieces.
    carry: Vec<u8>,
}

impl Body {
    fn next(&mut self) -> Result<Option<String>, String> {
        let Some(mut bytes) = self.raw()? else {
            return if self.carry.is_empty() {
                Ok(None)
            } else {
                Err("a body that is not UTF-8".into())
            };
        };
        if !self.carry.is_empty() {
            bytes.splice(0..0, std::mem::take(&mut self.carry));
        }
        let valid = match std::str::from_utf8(&bytes) {
            Ok(_) => bytes.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => return Err("a body that is not UTF-8".into()),
        };
        self.carry = bytes.split_off(valid);
        Ok(Some(String::from_utf8(bytes).expect("checked")))
    }

    fn raw(&mut self) -> Result<Option<Vec<u8>>, String> {
        let bytes = if self.chunked {
            let mut size = String::new();
            self.reader
                .read_line(&mut size)
                .map_err(|e| e.to_string())?;
            let n = usize::from_str_radix(size.trim(), 16)
                .map_err(|_| format!("a bad chunk size {size:?}"))?;
            if n == 0 {
                return Ok(None);
            }
            let mut buf = vec![0; n + 2];
            self.reader
                .read_exact(&mut buf)
                .map_err(|e| e.to_string())?;
            buf.truncate(n);
            buf
        } else {
            let want = self.left.unwrap_or(64 * 1024).min(64 * 1024);
            if want == 0 {
                return Ok(None);
            }
            let mut buf = vec![0; want];
            let n = self.reader.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                return Ok(None);
            }
            self.left = self.left.map(|l| l - n);
            buf.truncate(n);
            buf
        };
        Ok(Some(bytes))
    }

    fn all(&mut self) -> Result<String, String> {
        let mut out = String::new();
        while let Some(piece) = self.next()? {
            if out.len() + piece.len() > LIMIT {
                return Err(format!("a body over {LIMIT} bytes"));
            }
            out.push_str(&piece);
        }
        Ok(out)
    }
}

/// The demo agent as an MCP client: the versions it speaks, by handshake.
pub fn client_config() -> agentwire::mcp::ClientConfig {
    serde_json::from_value(json!({
        "clientInfo": { "name": "agentwire-demo-agent", "version": env!("CARGO_PKG_VERSION") },
        "protocolVersions": ["2025-11-25", "2025-06-18", "2025-03-26"], "era": "handshake",
    }))
    .expect("a valid MCP client configuration")
}

/// The text of a tool result's content blocks, as the agent quotes it.
pub fn result_text(result: &Value) -> String {
    let blocks = result["content"].as_array().cloned().unwrap_or_default();
    let text: Vec<String> = blocks
        .iter()
        .map(|b| {
            b["text"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| b.to_string())
        })
        .collect();
    text.join("\n")
}
