//! Shared by the native integration tests: where the official schemas and the seed
//! vectors are. They live in `../shared` beside the checkout (or `$AGENTWIRE_SHARED`)
//! and are never copied into the repo; tests that need them skip, saying so, without.
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

/// Reads a JSON file below `shared/`, or prints why the test is skipped and gives `None`.
pub fn shared_json(relative: &str) -> Option<Value> {
    let Some(dir) = shared_dir() else {
        eprintln!("SKIPPED: ../shared (official schemas and seed vectors) is not beside the checkout; set AGENTWIRE_SHARED");
        return None;
    };
    let path = dir.join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Every seed vector (`shared/vectors/seeds.json`), or `None` (skipped) without `shared/`.
pub fn seeds() -> Option<Vec<Value>> {
    let all = shared_json("vectors/seeds.json")?;
    Some(all["vectors"].as_array().expect("seeds.json has vectors").clone())
}

/// The seed vectors of one protocol.
pub fn seeds_of(protocol: &str) -> Option<Vec<Value>> {
    Some(seeds()?.into_iter().filter(|v| v["protocol"] == protocol).collect())
}
