//! Compiles the validation rules: `src/schema/rules/*.rules` stay the readable source;
//! `src/schema/compile.rs` parses them here and writes each as the Rust tables of
//! `src/schema/rules.rs` (OUT_DIR/acp.rs, mcp.rs, apps.rs), so the library carries no rules parser.
//! A rules error fails the build with its line number.

#[allow(dead_code)]
#[path = "src/schema/compile.rs"]
mod compile;
#[allow(dead_code)]
#[path = "src/schema/pattern.rs"]
mod pattern;
// (rules.rs allows dead code itself.)
#[path = "src/schema/rules.rs"]
mod rules;

// What the rules compare names with, under the path the library has it at.
#[allow(dead_code)]
#[path = "src/json/names.rs"]
mod names;
mod json {
    pub(crate) use super::names;
}

use std::{env, fs, path::Path};

fn main() {
    oracles();
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for file in ["compile.rs", "pattern.rs", "rules.rs"] {
        println!("cargo:rerun-if-changed=src/schema/{file}");
    }
    // The definitions' names serve only `validate_definition`, which the module lacks.
    let wasm = env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    for name in ["acp", "mcp", "apps"] {
        let src = Path::new("src/schema/rules").join(format!("{name}.rules"));
        println!("cargo:rerun-if-changed={}", src.display());
        let text = fs::read_to_string(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
        let tables =
            compile::emit(&text, !wasm).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
        fs::write(Path::new(&out).join(format!("{name}.rs")), tables)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// Tests whose oracle is missing are ignored (reported as skipped), never passed:
/// `shared_oracle` when `../shared` (or `$AGENTWIRE_SHARED`) holds the official schemas and
/// the seed vectors; `acp_oracle` when the official ACP schemas are there or in the
/// published SDK package (`node_modules/acp-sdk-v2/schema`, pinned in package.json).
fn oracles() {
    println!("cargo::rustc-check-cfg=cfg(shared_oracle)");
    println!("cargo::rustc-check-cfg=cfg(acp_oracle)");
    println!("cargo:rerun-if-env-changed=AGENTWIRE_SHARED");
    let shared = env::var_os("AGENTWIRE_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new("../shared").to_path_buf());
    let seeds = shared.join("vectors/seeds.json");
    let package = Path::new("node_modules/acp-sdk-v2/schema/v2/schema.unstable.json");
    for watched in [seeds.as_path(), package] {
        println!("cargo:rerun-if-changed={}", watched.display());
    }
    let has_shared = seeds.is_file();
    if has_shared {
        println!("cargo::rustc-cfg=shared_oracle");
    }
    if has_shared || package.is_file() {
        println!("cargo::rustc-cfg=acp_oracle");
    }
}
