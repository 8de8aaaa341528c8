//! `cargo run -p agentwire-gen` writes the `@generated` files from the official schemas;
//! `-- --check` only reports the files that differ (exit status 1); `-- --raw` prints the
//! schemas' definitions as translated, without the overlays.

fn main() {
    let check = std::env::args().skip(1).any(|a| a == "--check");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().unwrap_or(root);
    // `--raw`: every definition as the schemas alone give it, to review the overlay against.
    if std::env::args().skip(1).any(|a| a == "--raw") {
        match agentwire_gen::Sources::find(&root).and_then(|s| agentwire_gen::rules::raw(&s)) {
            Ok(text) => print!("{text}"),
            Err(e) => {
                eprintln!("agentwire-gen: {e}");
                std::process::exit(2);
            }
        }
        return;
    }
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
