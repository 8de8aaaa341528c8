//! The request metadata headers of Streamable HTTP in the stateless era (2026-07-28):
//! `Mcp-Method` and `Mcp-Name` mirror the body for intermediaries, and `Mcp-Param-{Name}`
//! mirrors the tool arguments whose input schema marks them `x-mcp-header`. Values that are
//! not plain visible ASCII go as `=?base64?…?=`.

use crate::json::tape::Kind;
use crate::json::Item;
use crate::json::Value;

/// The schema keyword that names a parameter's header.
const ANNOTATION: &str = "x-mcp-header";
/// Integers beyond JavaScript's safe range cannot be mirrored exactly.
const SAFE_INTEGER: i64 = (1 << 53) - 1;

/// `Mcp-Method`, and `Mcp-Name` for the methods that name a tool, prompt or resource (the
/// params read where they stand in the message's parse).
pub fn standard(method: &str, params: Option<Item>) -> Vec<(String, String)> {
    let mut out = vec![("mcp-method".to_string(), header_value(method))];
    let source = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return out,
    };
    if let Some(name) = params.and_then(|p| p.get(source)).and_then(|n| n.as_str()) {
        out.push(("mcp-name".to_string(), header_value(&name)));
    }
    out
}

/// The annotated parameters of one tool: (header name after `Mcp-Param-`, property path).
pub type Mirrored = Vec<(String, Vec<String>)>;

/// Reads a tool's `inputSchema` for `x-mcp-header` annotations; `Err` says why the tool
/// definition is invalid (the spec has the client leave such a tool out of `tools/list`).
pub fn mirrored(input_schema: &Value) -> Result<Mirrored, String> {
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), true, &mut found)?;
    for (i, (name, _)) in found.iter().enumerate() {
        if found[..i]
            .iter()
            .any(|(other, _)| other.eq_ignore_ascii_case(name))
        {
            return Err(format!("{ANNOTATION} \"{name}\" is used twice"));
        }
    }
    Ok(found)
}

/// `reachable`: the node is reached from the root through `properties` keys only.
fn walk(
    node: &Value,
    path: &mut Vec<String>,
    reachable: bool,
    found: &mut Mirrored,
) -> Result<(), String> {
    match node {
        Value::Object(map) => {
            if let Some(name) = map.get(ANNOTATION) {
                let at = || {
                    if path.is_empty() {
                        "the schema root".to_string()
                    } else {
                        format!("/{}", crate::text::join(path, "/"))
                    }
                };
                if !reachable || path.is_empty() {
                    return Err(format!(
                        "{ANNOTATION} at {} is not reached through `properties` alone",
                        at()
                    ));
                }
                let Some(name) = name
                    .as_str()
                    .filter(|n| !n.is_empty() && n.bytes().all(is_tchar))
                else {
                    return Err(format!("{ANNOTATION} at {} is not an HTTP token", at()));
                };
                if !matches!(
                    map.get("type").and_then(Value::as_str),
                    Some("string" | "integer" | "boolean")
                ) {
                    return Err(format!("{ANNOTATION} \"{name}\" is on a parameter that is not a string, an integer or a boolean"));
                }
                found.push((name.to_string(), path.clone()));
            }
            for (key, child) in map {
                if key == "properties" {
                    if let Value::Object(props) = child {
                        for (prop, schema) in props {
                            path.push(prop.clone());
                            walk(schema, path, reachable, found)?;
                            path.pop();
                        }
                    }
                } else if key != ANNOTATION {
                    // Anything else (items, oneOf, $defs, if/then…) leaves the static chain.
                    walk(child, &mut path.clone(), false, found)?;
                }
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| walk(item, &mut path.clone(), false, found)),
        _ => Ok(()),
    }
}

/// The `Mcp-Param-*` headers of one call: a value present at each annotated path (null and
/// absent are omitted), read where it stands in the message's parse.
pub fn params(mirrored: &Mirrored, arguments: Option<Item>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(arguments) = arguments else {
        return out;
    };
    for (name, path) in mirrored {
        // Only a scalar is mirrored, so only a scalar is made a value.
        let value = path
            .iter()
            .try_fold(arguments, |v, key| v.get(key))
            .filter(|v| matches!(v.kind(), Kind::Str | Kind::Bool | Kind::Num))
            .map(|v| v.value());
        let text = match value {
            Some(Value::String(s)) => s,
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => match n.as_i64().filter(|i| i.abs() <= SAFE_INTEGER) {
                Some(i) => i.to_string(),
                None => continue,
            },
            _ => continue,
        };
        out.push((
            format!("mcp-param-{}", name.to_ascii_lowercase()),
            header_value(&text),
        ));
    }
    out
}

/// A value as it may stand in a header: as it is when it is visible ASCII and spaces with
/// none at either end, else the base64 sentinel form (also for a value that looks like one).
pub fn header_value(text: &str) -> String {
    let looks_encoded = text.starts_with("=?base64?") && text.ends_with("?=");
    let plain = text
        .bytes()
        .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
        && !text.starts_with([' ', '\t'])
        && !text.ends_with([' ', '\t'])
        && !looks_encoded;
    if plain {
        text.to_string()
    } else {
        format!("=?base64?{}?=", base64(text.as_bytes()))
    }
}

/// A header value as the sender meant it: the base64 sentinel form decoded (`None` when it is
/// not valid base64 of UTF-8), anything else as it is.
pub fn decode_header_value(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => String::from_utf8(unbase64(encoded)?).ok(),
        None => Some(value.to_string()),
    }
}

fn unbase64(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim_end_matches('=');
    if text.len() % 4 != 0 || text.len() - digits.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in digits.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Standard base64 with padding; a dozen lines here against a crate for one call site.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                ABC[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_encoded_as_the_spec_shows() {
        for (value, header) in [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ] {
            assert_eq!(header_value(value), header, "{value:?}");
        }
    }

    #[test]
    fn encoded_values_decode_to_what_was_meant() {
        for value in [
            "us-west1",
            "Hello, 世界",
            " padded ",
            "line1\nline2",
            "=?base64?literal?=",
            "",
            "a",
            "ab",
            "abc",
        ] {
            assert_eq!(
                decode_header_value(&header_value(value)).as_deref(),
                Some(value),
                "{value:?}"
            );
        }
        assert_eq!(decode_header_value("=?base64?!!!!?="), None);
        assert_eq!(decode_header_value("=?base64?/w==?="), None, "not UTF-8");
    }

    /// `f` given `value` as it stands in a parse of its text.
    fn read<R>(value: &Value, f: impl FnOnce(Item) -> R) -> R {
        let text = crate::json::text(value);
        let tape = crate::json::tape_of(&text).expect("JSON");
        f(Item::root(&tape))
    }

    #[test]
    fn standard_headers_name_the_method_and_the_target() {
        assert_eq!(
            read(&json!({"name": "get_weather"}), |p| standard(
                "tools/call",
                Some(p)
            )),
            vec![
                ("mcp-method".into(), "tools/call".into()),
                ("mcp-name".into(), "get_weather".into())
            ]
        );
        assert_eq!(
            read(&json!({"uri": "file:///a b"}), |p| standard(
                "resources/read",
                Some(p)
            ))[1],
            ("mcp-name".into(), "file:///a b".into())
        );
        assert_eq!(
            standard("tools/list", None),
            vec![("mcp-method".into(), "tools/list".into())]
        );
    }

    #[test]
    fn annotated_parameters_are_mirrored() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "opts": {"type": "object", "properties": {"limit": {"type": "integer", "x-mcp-header": "Limit"}, "dry": {"type": "boolean", "x-mcp-header": "Dry"}}}
        }});
        let m = mirrored(&schema).expect("valid");
        let args =
            json!({"region": "us-west1", "query": "SELECT 1", "opts": {"limit": 42, "dry": null}});
        assert_eq!(
            read(&args, |a| params(&m, Some(a))),
            vec![
                ("mcp-param-region".into(), "us-west1".into()),
                ("mcp-param-limit".into(), "42".into())
            ]
        );
        assert_eq!(read(&json!({}), |a| params(&m, Some(a))), vec![]);
    }

    #[test]
    fn invalid_annotations_make_the_tool_invalid() {
        for schema in [
            json!({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}),
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"type": "object", "oneOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"type": "object", "x-mcp-header": "Root"}),
        ] {
            assert!(mirrored(&schema).is_err(), "{schema}");
        }
    }
}
