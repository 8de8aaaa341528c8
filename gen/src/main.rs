//! `cargo run -p agentwire-gen` writes the `@generated` files from the official schemas;
//! `-- --check` only reports the files that differ (exit status 1).

fn main() {
    let check = std::env::args().skip(1).any(|a| a == "--check");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().unwrap_or(root);
    match agentwire_gen::run(&root, check) {
        Ok(stale) if check && !stale.is_empty() => {
            eprintln!(
                "stale: {} (run `{}`)",
                stale.join(", "),
                agentwire_gen::COMMAND
            );
            std::process::exit(1);
        }
        Ok(stale) => {
            let verb = if check { "up to date" } else { "written" };
            println!(
                "{verb}: {}",
                if stale.is_empty() {
                    "nothing changed".into()
                } else {
                    stale.join(", ")
                }
            );
        }
        Err(e) => {
            eprintln!("agentwire-gen: {e}");
            std::process::exit(2);
        }
    }
}
