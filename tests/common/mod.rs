//! Shared by the native integration tests: where the official schemas and the seed
//! vectors are. They live in `../shared` beside the checkout (or `$AGENTWIRE_SHARED`)
//! and are never copied into the repo; tests that need them are ignored without them
//! (build.rs sets the `shared_oracle` and `acp_oracle` cfgs), so they count as skipped.
#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;

/// The `shared` folder, if it is there.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("AGENTWIRE_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    dir.join("vectors/seeds.json").is_file().then_some(dir)
}

/// Reads a JSON file below `shared/`. The tests that call it are ignored (reported as
/// skipped) when `shared/` is missing, by the `shared_oracle` cfg of build.rs.
pub fn shared_json(relative: &str) -> Option<Value> {
    let dir = shared_dir().expect("../shared (official schemas and seed vectors) is gone since the build; set AGENTWIRE_SHARED");
    Some(read_json(&dir.join(relative)))
}

/// An official schema file, from the published package where one carries it (the ACP
/// SDK 2.4.0 ships the schemas of `spec/acp/npm-sdk-2.4.0`), else from `shared/`; `None`
/// when neither has it.
pub fn oracle_json(relative: &str) -> Option<Value> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let packaged = relative
        .strip_prefix("spec/acp/npm-sdk-2.4.0/")
        .map(|rest| root.join("node_modules/acp-sdk-v2/schema").join(rest));
    let from_shared = shared_dir().map(|d| d.join(relative));
    let path = packaged
        .into_iter()
        .chain(from_shared)
        .find(|p| p.is_file())?;
    Some(read_json(&path))
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every seed vector (`shared/vectors/seeds.json`), or `None` (skipped) without `shared/`.
pub fn seeds() -> Option<Vec<Value>> {
    let all = shared_json("vectors/seeds.json")?;
    Some(
        all["vectors"]
            .as_array()
            .expect("seeds.json has vectors")
            .clone(),
    )
}

/// The seed vectors of one protocol.
pub fn seeds_of(protocol: &str) -> Option<Vec<Value>> {
    Some(
        seeds()?
            .into_iter()
            .filter(|v| v["protocol"] == protocol)
            .collect(),
    )
}
