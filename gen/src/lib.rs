//! agentwire's generator: reads the official JSON Schemas and writes the committed
//! `@generated` files (`cargo run -p agentwire-gen`; `-- --check` compares instead of
//! writing): the error codes (Rust, JS, TypeScript), the validation rules, both protocols'
//! method tables and ACP's lenient-reading table. What the schemas do not say comes from
//! hand-written overlays: `gen/codes.overlay`, `gen/methods.overlay` and
//! `src/schema/rules/*.overlay.rules`.

use serde_json::Value;
use std::path::{Path, PathBuf};

#[path = "codes.rs"]
pub mod codes;
#[path = "lenient.rs"]
pub mod lenient;
#[path = "methods.rs"]
pub mod methods;
#[path = "rules.rs"]
pub mod rules;
#[path = "typescript.rs"]
pub mod typescript;

pub const COMMAND: &str = "cargo run -p agentwire-gen";

/// Where the schemas are: the ACP SDK package pinned in package.json (`acp-sdk-v2`, else the
/// verbatim copy in the shared specifications) and `$AGENTWIRE_SHARED` (default `../shared`).
pub struct Sources {
    pub root: PathBuf,
    pub acp_sdk: PathBuf,
    pub shared: PathBuf,
    /// The MCP Apps package pinned in package.json (`@modelcontextprotocol/ext-apps`): its
    /// directory, which holds `dist/src/generated/schema.json` and `package.json`.
    pub apps: PathBuf,
}

impl Sources {
    pub fn find(root: &Path) -> Result<Sources, String> {
        let shared = std::env::var_os("AGENTWIRE_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("../shared"));
        let package = root.join("node_modules/acp-sdk-v2/schema");
        let acp_sdk = if package.join("v2/schema.unstable.json").is_file() {
            package
        } else {
            shared.join("spec/acp/npm-sdk-2.4.0")
        };
        let s = Sources {
            root: root.to_path_buf(),
            acp_sdk,
            shared,
            apps: root.join("node_modules/@modelcontextprotocol/ext-apps"),
        };
        for p in [
            s.acp_sdk.join("v1/schema.unstable.json"),
            s.spec("mcp/2026-07-28/schema.json"),
            s.apps_schema(),
        ] {
            if !p.is_file() {
                return Err(format!(
                    "{} is missing: run npm ci, or set AGENTWIRE_SHARED",
                    p.display()
                ));
            }
        }
        Ok(s)
    }

    /// The MCP Apps schema the package publishes.
    pub fn apps_schema(&self) -> PathBuf {
        self.apps.join("dist/src/generated/schema.json")
    }

    pub fn spec(&self, rel: &str) -> PathBuf {
        self.shared.join("spec").join(rel)
    }

    /// The MCP versions of the shared specifications, oldest first (`draft` left out: it is
    /// the newest dated version).
    pub fn mcp_versions(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.spec("mcp"))
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.retain(|n| {
            n.len() == 10
                && n.as_bytes()[4] == b'-'
                && self.spec(&format!("mcp/{n}/schema.json")).is_file()
        });
        v.sort();
        v
    }
}

pub fn read_json(p: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
}

/// The definitions of a schema (`$defs` or draft-07's `definitions`).
pub fn defs(schema: &Value) -> &serde_json::Map<String, Value> {
    static EMPTY: std::sync::OnceLock<serde_json::Map<String, Value>> = std::sync::OnceLock::new();
    schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(Default::default))
}

/// Every generated file: (path relative to the repository, contents).
pub fn generate(s: &Sources) -> Result<Vec<(String, String)>, String> {
    let mut out = codes::generate(s)?;
    out.extend(rules::generate(s)?);
    out.extend(methods::generate(s)?);
    out.push((typescript::OUT.to_string(), typescript::generate(s)?));
    let acp = lenient::read_sources(&s.acp_sdk)?;
    out.push((
        "src/acp/lenient_table.rs".to_string(),
        lenient::generate(&acp)?,
    ));
    Ok(out)
}

/// Writes the files (or, with `check`, lists the ones that differ); returns the differing paths.
pub fn run(root: &Path, check: bool) -> Result<Vec<String>, String> {
    let s = Sources::find(root)?;
    let mut stale = Vec::new();
    for (rel, text) in generate(&s)? {
        let path = root.join(&rel);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(rel.clone());
            if !check {
                std::fs::write(&path, text).map_err(|e| format!("{rel}: {e}"))?;
            }
        }
    }
    Ok(stale)
}
