//! What the official MCP conformance suite's server scenarios call (suite 0.1.16, its
//! reference server `examples/servers/typescript/everything-server.ts`): the `test_*` tools,
//! the `test://` resources and the `test_*` prompts, with the exact shapes its checks read.
//! Pure data and small plans; `mcp_mode` runs them (timers, requests to the client).

use serde_json::{json, Value};

/// A 1×1 red PNG and a minimal WAV, as the reference server sends them.
pub const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
pub const AUDIO: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
/// The pause between the timed notifications of `test_tool_with_logging` and `…_progress`.
pub const STEP_MS: u64 = 50;

/// How a conformance tool call goes.
pub enum Plan {
    /// Answered at once.
    Done(Value),
    /// Notifications one `STEP_MS` apart, then the result.
    Timed(Vec<Note>, Value),
    /// A request to the client (`sampling/createMessage` or `elicitation/create`); its
    /// answer (or error) becomes the result through `Ask::result`.
    Ask(Ask),
}

pub enum Note {
    Log(&'static str),
    Progress(f64),
}

pub struct Ask {
    pub method: &'static str,
    pub params: Value,
    kind: AskKind,
}

enum AskKind {
    Sampling,
    Elicitation { label: &'static str },
}

fn text(t: impl Into<String>) -> Value {
    json!({ "content": [{ "type": "text", "text": t.into() }] })
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

/// The tools, as `tools/list` shows them.
pub fn tools() -> Vec<Value> {
    let tool = |name: &str, description: &str, schema: Value| json!({ "name": name, "description": description, "inputSchema": schema });
    let string_arg = |arg: &str, what: &str| json!({ "type": "object", "properties": { arg: { "type": "string", "description": what } }, "required": [arg] });
    vec![
        tool(
            "test_simple_text",
            "Tests simple text content response",
            no_args(),
        ),
        tool(
            "test_image_content",
            "Tests image content response",
            no_args(),
        ),
        tool(
            "test_audio_content",
            "Tests audio content response",
            no_args(),
        ),
        tool(
            "test_embedded_resource",
            "Tests embedded resource content response",
            no_args(),
        ),
        tool(
            "test_multiple_content_types",
            "Tests response with multiple content types (text, image, resource)",
            no_args(),
        ),
        tool(
            "test_tool_with_logging",
            "Tests tool that emits log messages during execution",
            no_args(),
        ),
        tool(
            "test_tool_with_progress",
            "Tests tool that reports progress notifications",
            no_args(),
        ),
        tool(
            "test_error_handling",
            "Tests error response handling",
            no_args(),
        ),
        tool(
            "test_reconnection",
            "Tests SSE stream disconnection and client reconnection (SEP-1699)",
            no_args(),
        ),
        tool(
            "test_sampling",
            "Tests server-initiated sampling (LLM completion request)",
            string_arg("prompt", "The prompt to send to the LLM"),
        ),
        tool(
            "test_elicitation",
            "Tests server-initiated elicitation (user input request)",
            string_arg("message", "The message to show the user"),
        ),
        tool(
            "test_elicitation_sep1034_defaults",
            "Tests elicitation with default values per SEP-1034",
            no_args(),
        ),
        tool(
            "test_elicitation_sep1330_enums",
            "Tests elicitation with enum schema improvements per SEP-1330",
            no_args(),
        ),
        // SEP-1613: a JSON Schema 2020-12 input schema ($schema, $defs, additionalProperties) kept as written.
        tool(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": { "address": { "type": "object", "properties": { "street": { "type": "string" }, "city": { "type": "string" } } } },
                "properties": { "name": { "type": "string" }, "address": { "$ref": "#/$defs/address" } },
                "additionalProperties": false,
            }),
        ),
    ]
}

/// The plan for a conformance tool, or `None` when `name` is not one.
pub fn call(name: &str, args: &Value, progress_token: Option<&Value>) -> Option<Plan> {
    let resource = |uri: &str, mime: &str, body: &str| json!({ "type": "resource", "resource": { "uri": uri, "mimeType": mime, "text": body } });
    let plan = match name {
        "test_simple_text" => Plan::Done(text("This is a simple text response for testing.")),
        "test_image_content" => Plan::Done(json!({ "content": [{ "type": "image", "data": IMAGE, "mimeType": "image/png" }] })),
        "test_audio_content" => Plan::Done(json!({ "content": [{ "type": "audio", "data": AUDIO, "mimeType": "audio/wav" }] })),
        "test_embedded_resource" => Plan::Done(json!({ "content": [resource("test://embedded-resource", "text/plain", "This is an embedded resource content.")] })),
        "test_multiple_content_types" => Plan::Done(json!({ "content": [
            { "type": "text", "text": "Multiple content types test:" },
            { "type": "image", "data": IMAGE, "mimeType": "image/png" },
            resource("test://mixed-content-resource", "application/json", r#"{"test":"data","value":123}"#),
        ] })),
        "test_tool_with_logging" => Plan::Timed(
            vec![Note::Log("Tool execution started"), Note::Log("Tool processing data"), Note::Log("Tool execution completed")],
            text("Tool with logging executed successfully"),
        ),
        "test_tool_with_progress" => Plan::Timed(
            vec![Note::Progress(0.0), Note::Progress(50.0), Note::Progress(100.0)],
            text(progress_token.map_or("0".to_string(), |t| t.as_str().map_or(t.to_string(), str::to_string))),
        ),
        // A tool that ran and failed: reported in the result, as MCP asks.
        "test_error_handling" => Plan::Done(json!({ "content": [{ "type": "text", "text": "This tool intentionally returns an error for testing" }], "isError": true })),
        // Over stdio there is no stream to close; the answer comes on the request's stream.
        "test_reconnection" => Plan::Done(text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")),
        "test_sampling" => Plan::Ask(Ask {
            method: "sampling/createMessage",
            params: json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": args["prompt"].as_str().unwrap_or_default() } }], "maxTokens": 100 }),
            kind: AskKind::Sampling,
        }),
        "test_elicitation" => Plan::Ask(elicit(args["message"].as_str().unwrap_or_default(), json!({
            "response": { "type": "string", "description": "User's response" } }), json!(["response"]), "User response")),
        "test_elicitation_sep1034_defaults" => Plan::Ask(elicit("Please review and update the form fields with defaults", json!({
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": { "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active" },
            "verified": { "type": "boolean", "description": "Verification status", "default": true },
        }), json!([]), "Elicitation completed")),
        "test_elicitation_sep1330_enums" => Plan::Ask(elicit("Please select options from the enum fields", json!({
            "untitledSingle": { "type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"] },
            "titledSingle": { "type": "string", "description": "Select one option with titles", "oneOf": [
                { "const": "value1", "title": "First Option" }, { "const": "value2", "title": "Second Option" }, { "const": "value3", "title": "Third Option" }] },
            "legacyEnum": { "type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"] },
            "untitledMulti": { "type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
            "titledMulti": { "type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
                "items": { "anyOf": [{ "const": "value1", "title": "First Choice" }, { "const": "value2", "title": "Second Choice" }, { "const": "value3", "title": "Third Choice" }] } },
        }), json!([]), "Elicitation completed")),
        "json_schema_2020_12_tool" => Plan::Done(text(format!("JSON Schema 2020-12 tool called with: {}", if args.is_object() { args.to_string() } else { "{}".into() }))),
        _ => return None,
    };
    Some(plan)
}

fn elicit(message: &str, properties: Value, required: Value, label: &'static str) -> Ask {
    Ask {
        method: "elicitation/create",
        params: json!({ "message": message, "requestedSchema": { "type": "object", "properties": properties, "required": required } }),
        kind: AskKind::Elicitation { label },
    }
}

impl Ask {
    /// The tool's result once the client answered (`Ok`) or refused (`Err(message)`).
    pub fn result(&self, answer: Result<&Value, &str>) -> Value {
        match (&self.kind, answer) {
            (AskKind::Sampling, Ok(r)) => {
                let reply = r["content"]["text"]
                    .as_str()
                    .or(r["message"]["content"]["text"].as_str())
                    .unwrap_or("No response");
                text(format!("LLM response: {reply}"))
            }
            (AskKind::Elicitation { label }, Ok(r)) => {
                let content = if r["content"].is_object() {
                    r["content"].to_string()
                } else {
                    "{}".into()
                };
                text(format!(
                    "{label}: action={}, content={content}",
                    r["action"].as_str().unwrap_or("")
                ))
            }
            (AskKind::Sampling, Err(why)) => {
                text(format!("Sampling not supported or error: {why}"))
            }
            (AskKind::Elicitation { .. }, Err(why)) => {
                text(format!("Elicitation not supported or error: {why}"))
            }
        }
    }
}

pub fn resources() -> Vec<Value> {
    vec![
        json!({ "uri": "test://static-text", "name": "static-text", "title": "Static Text Resource", "description": "A static text resource for testing", "mimeType": "text/plain" }),
        json!({ "uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource", "description": "A static binary resource (image) for testing", "mimeType": "image/png" }),
        json!({ "uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource", "description": "A resource to subscribe to", "mimeType": "text/plain" }),
    ]
}

pub fn templates() -> Vec<Value> {
    vec![
        json!({ "uriTemplate": "test://template/{id}/data", "name": "template", "title": "Resource Template", "description": "A resource template with parameter substitution", "mimeType": "application/json" }),
    ]
}

/// The contents of a `test://` resource, or `None` when there is no such one.
pub fn read(uri: &str) -> Option<Value> {
    let one = |c: Value| json!({ "contents": [c] });
    match uri {
        "test://static-text" => Some(one(
            json!({ "uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource." }),
        )),
        "test://static-binary" => Some(one(
            json!({ "uri": uri, "mimeType": "image/png", "blob": IMAGE }),
        )),
        "test://watched-resource" => Some(one(
            json!({ "uri": uri, "mimeType": "text/plain", "text": "Watched resource content" }),
        )),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")
                .filter(|id| !id.is_empty() && !id.contains('/'))?;
            let body =
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            Some(one(
                json!({ "uri": uri, "mimeType": "application/json", "text": body.to_string() }),
            ))
        }
    }
}

pub fn prompts() -> Vec<Value> {
    let arg =
        |name: &str, what: &str| json!({ "name": name, "description": what, "required": true });
    vec![
        json!({ "name": "test_simple_prompt", "title": "Simple Test Prompt", "description": "A simple prompt without arguments" }),
        json!({ "name": "test_prompt_with_arguments", "title": "Prompt With Arguments", "description": "A prompt with required arguments",
                "arguments": [arg("arg1", "First test argument"), arg("arg2", "Second test argument")] }),
        json!({ "name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource", "description": "A prompt that includes an embedded resource",
                "arguments": [arg("resourceUri", "URI of the resource to embed")] }),
        json!({ "name": "test_prompt_with_image", "title": "Prompt With Image", "description": "A prompt that includes image content" }),
    ]
}

/// A `test_*` prompt, or `None` when `name` is not one; `Err` names a missing argument.
pub fn prompt(name: &str, args: &Value) -> Option<Result<Value, String>> {
    let user = |content: Value| json!({ "role": "user", "content": content });
    let arg = |key: &str| {
        args[key]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("{name} needs the argument {key}"))
    };
    let messages = match name {
        "test_simple_prompt" => Ok(vec![user(json!({ "type": "text", "text": "This is a simple prompt for testing." }))]),
        "test_prompt_with_arguments" => arg("arg1").and_then(|a| Ok((a, arg("arg2")?))).map(|(a, b)| {
            vec![user(json!({ "type": "text", "text": format!("Prompt with arguments: arg1='{a}', arg2='{b}'") }))]
        }),
        "test_prompt_with_embedded_resource" => arg("resourceUri").map(|uri| vec![
            user(json!({ "type": "resource", "resource": { "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing." } })),
            user(json!({ "type": "text", "text": "Please process the embedded resource above." })),
        ]),
        "test_prompt_with_image" => Ok(vec![
            user(json!({ "type": "image", "data": IMAGE, "mimeType": "image/png" })),
            user(json!({ "type": "text", "text": "Please analyze the image above." })),
        ]),
        _ => return None,
    };
    Some(messages.map(|m| json!({ "messages": m })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_plan_and_every_listed_thing_reads() {
        for t in tools() {
            let name = t["name"].as_str().unwrap();
            assert!(
                t["description"].is_string() && t["inputSchema"]["type"] == "object",
                "{t}"
            );
            assert!(call(name, &json!({}), None).is_some(), "{name}");
        }
        assert!(call("nope", &json!({}), None).is_none());
        for r in resources() {
            assert!(read(r["uri"].as_str().unwrap()).is_some(), "{r}");
        }
        let t = read("test://template/123/data").unwrap();
        assert!(t["contents"][0]["text"].as_str().unwrap().contains("123"));
        assert!(read("test://template//data").is_none() && read("test://other").is_none());
        for p in prompts() {
            assert!(p["description"].is_string(), "{p}");
        }
    }

    #[test]
    fn prompts_substitute_their_arguments() {
        let got = prompt(
            "test_prompt_with_arguments",
            &json!({ "arg1": "hello", "arg2": "world" }),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            got["messages"][0]["content"]["text"],
            "Prompt with arguments: arg1='hello', arg2='world'"
        );
        assert!(
            prompt("test_prompt_with_arguments", &json!({ "arg1": "x" }))
                .unwrap()
                .is_err()
        );
        let embedded = prompt(
            "test_prompt_with_embedded_resource",
            &json!({ "resourceUri": "test://x" }),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            embedded["messages"][0]["content"]["resource"]["uri"],
            "test://x"
        );
    }

    #[test]
    fn asked_tools_report_the_answer_or_the_refusal() {
        let Some(Plan::Ask(ask)) = call("test_sampling", &json!({ "prompt": "hi" }), None) else {
            panic!()
        };
        assert_eq!(ask.params["messages"][0]["content"]["text"], "hi");
        assert_eq!(
            ask.result(Ok(&json!({ "content": { "text": "yes" } })))["content"][0]["text"],
            "LLM response: yes"
        );
        let Some(Plan::Ask(ask)) = call("test_elicitation_sep1034_defaults", &json!({}), None)
        else {
            panic!()
        };
        let r = ask.result(Ok(
            &json!({ "action": "accept", "content": { "name": "John Doe" } }),
        ));
        assert_eq!(
            r["content"][0]["text"],
            r#"Elicitation completed: action=accept, content={"name":"John Doe"}"#
        );
        assert!(ask.result(Err("no capability"))["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not supported"));
    }
}
