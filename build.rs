//! The validation rules ship without their comments: `src/schema/rules/*.rules` stay the
//! readable source; the copies in OUT_DIR keep every line (so "rules line N" still points
//! into the source) but drop comment text and indentation.

use std::{env, fs, path::Path};

fn main() {
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for name in ["acp.rules", "mcp.rules"] {
        let src = Path::new("src/schema/rules").join(name);
        println!("cargo:rerun-if-changed={}", src.display());
        let text = fs::read_to_string(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
        let lines: Vec<&str> = text.lines().map(str::trim).map(|l| if l.starts_with('#') { "" } else { l }).collect();
        fs::write(Path::new(&out).join(name), lines.join("\n")).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
