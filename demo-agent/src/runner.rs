//! The small event loop both modes share: a thread reads stdin lines into a channel; the
//! main thread waits for the next line or the next scheduled step, whichever comes first,
//! and writes every outgoing message as one line on stdout.

use std::io::{BufRead, Write};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Where outgoing messages go: one JSON-RPC message per line.
pub struct Out {
    sink: Box<dyn Write>,
}

impl Out {
    pub fn stdout() -> Self {
        Out {
            sink: Box::new(std::io::stdout()),
        }
    }

    pub fn line(&mut self, text: &str) {
        // A closed stdout means the client is gone; stdin closing ends the loop soon after.
        let _ = writeln!(self.sink, "{text}").and_then(|_| self.sink.flush());
    }

    /// Sends what the core produced, or logs why it refused to.
    pub fn send<E: std::fmt::Debug>(&mut self, sent: Result<agentwire::jsonrpc::Outbound, E>) {
        match sent {
            Ok(out) => self.line(&out.text),
            Err(e) => log(&format!("not sent: {e:?}")),
        }
    }
}

pub fn log(message: &str) {
    eprintln!("[agentwire-demo-agent] {message}");
}

/// What a mode does with lines and time; `now_ms` counts from the start of the process.
pub trait Driver {
    fn on_line(&mut self, line: &str, now_ms: u64, out: &mut Out);
    /// Called after every wake-up: run what is due.
    fn on_time(&mut self, now_ms: u64, out: &mut Out);
    /// When something is next due, if anything is.
    fn next_wake(&self) -> Option<u64>;
    /// Stdin closed.
    fn on_close(&mut self, out: &mut Out);
}

/// Runs until stdin closes.
pub fn run(driver: &mut dyn Driver, out: &mut Out) {
    let (tx, rx) = channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    loop {
        let wait = match driver.next_wake() {
            Some(at) => Duration::from_millis(at.saturating_sub(now())),
            None => Duration::from_secs(3600),
        };
        match rx.recv_timeout(wait) {
            Ok(line) if line.trim().is_empty() => {}
            Ok(line) => driver.on_line(&line, now(), out),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        driver.on_time(now(), out);
    }
    driver.on_close(out);
}
