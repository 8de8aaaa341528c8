//! Native validation throughput on the shared corpus (bench/validate/corpus.mjs):
//!   node bench/validate/corpus.mjs /tmp/corpus.json
//!   cargo run --release --example validate -- /tmp/corpus.json
//! Prints the first-validation time (the rules are compiled tables: nothing to set up),
//! messages/s and MB/s. `BENCH_BYTES` sets the volume validated per set (default 2 MB;
//! raise it for a profiler).

use agentwire::schema::{validate_text, Context, Direction, Limits, Protocol};
use serde_json::Value;
use std::time::Instant;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "bench/validate/corpus.json".into());
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (run bench/validate/corpus.mjs first)"));
    let corpus: Vec<Value> = serde_json::from_str(&text).expect("corpus is JSON");
    let items: Vec<(Protocol, String, Direction, Option<String>, String)> = corpus
        .iter()
        .map(|m| {
            let protocol = if m["protocol"] == "acp" {
                Protocol::Acp
            } else {
                Protocol::Mcp
            };
            let direction = if m["direction"] == "clientToServer" {
                Direction::ClientToServer
            } else {
                Direction::ServerToClient
            };
            let s = |k: &str| m[k].as_str().map(String::from);
            (
                protocol,
                s("version").unwrap_or_default(),
                direction,
                s("inReplyTo"),
                s("text").unwrap_or_default(),
            )
        })
        .collect();
    let limits = Limits::default();
    let volume: usize = std::env::var("BENCH_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let run = |i: &(Protocol, String, Direction, Option<String>, String)| {
        let ctx = Context {
            protocol: i.0,
            version: &i.1,
            direction: i.2,
            in_reply_to: i.3.as_deref(),
        };
        validate_text(&i.4, &ctx, &limits)
    };
    let t = Instant::now();
    let first = run(&items[0]);
    println!(
        "first validation: {:.2} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let invalid: Vec<_> = items.iter().map(run).filter(|r| !r.ok).collect();
    assert!(
        first.ok && invalid.is_empty(),
        "the corpus must be valid: {invalid:?}"
    );
    for (label, filter) in [
        ("all", None),
        ("acp", Some(Protocol::Acp)),
        ("mcp", Some(Protocol::Mcp)),
    ] {
        let set: Vec<_> = items
            .iter()
            .filter(|i| filter.is_none_or(|p| i.0 == p))
            .collect();
        let set_bytes: usize = set.iter().map(|i| i.4.len()).sum();
        let rounds = (volume / set_bytes.max(1)).max(20);
        let t = Instant::now();
        for _ in 0..rounds {
            for i in &set {
                std::hint::black_box(run(i));
            }
        }
        let secs = t.elapsed().as_secs_f64();
        let n = (rounds * set.len()) as f64;
        println!(
            "{label:>4}: {:>9.0} messages/s  {:>7.1} MB/s  ({} messages, {} bytes)",
            n / secs,
            (rounds * set_bytes) as f64 / secs / 1e6,
            set.len(),
            set_bytes
        );
    }
}
