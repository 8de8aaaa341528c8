//! Writes `src/acp/lenient_table.rs` from the ACP schemas of the official SDK (see
//! `src/acp/lenient_gen.rs`): `cargo run --example acp_lenient_table`.

#[path = "../src/acp/lenient_gen.rs"]
mod lenient_gen;

fn main() {
    let schemas = lenient_gen::read_sources()
        .expect("the SDK's schemas: run npm ci (node_modules/acp-sdk-v2), or set AGENTWIRE_SHARED");
    let table = lenient_gen::generate(&schemas).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write("src/acp/lenient_table.rs", table).expect("write src/acp/lenient_table.rs");
    println!("wrote src/acp/lenient_table.rs");
}
