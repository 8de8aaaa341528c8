//! The pipes of a process the HTTP endpoints start: its stdin shared by the requests writing
//! to it, and its stderr into the relay's log.

use std::sync::Arc;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin};

use crate::lines::{read_line, Line, Overflow};

/// A process's stdin, shared by the requests writing to it (one line at a time).
pub type Stdin = Arc<tokio::sync::Mutex<Option<ChildStdin>>>;

/// A process's stdin, to share.
pub fn shared(stdin: Option<ChildStdin>) -> Stdin {
    Arc::new(tokio::sync::Mutex::new(stdin))
}

/// One JSON text as a line on a process's stdin; false when it is gone (the pipe is then
/// dropped, so later writes fail at once). Lines go in the order their writers took the
/// pipe. Once begun, a line is written whole even if its writer gives up (a request cut off
/// at its deadline while the process does not read): a half line would run into the next.
pub async fn write_line(stdin: &Stdin, text: &str) -> bool {
    let mut stdin = stdin.clone().lock_owned().await;
    if stdin.is_none() {
        return false;
    }
    // JSON text has no raw newline except as whitespace, which may be dropped.
    let mut line = if text.contains(['\n', '\r']) {
        text.replace(['\n', '\r'], " ")
    } else {
        text.to_string()
    };
    line.push('\n');
    let write = tokio::spawn(async move {
        let Some(pipe) = stdin.as_mut() else {
            return false;
        };
        let ok = pipe.write_all(line.as_bytes()).await.is_ok() && pipe.flush().await.is_ok();
        if !ok {
            stdin.take();
        }
        ok
    });
    write.await.unwrap_or(false)
}

/// Closes a process's stdin (it reads its end), unless a line is being written to it: that
/// write ends when the process does, which follows.
pub fn close_stdin(stdin: &Stdin) {
    if let Ok(mut pipe) = stdin.try_lock() {
        pipe.take();
    }
}

/// A process's stderr into the relay's log, line by line, each marked with `name`.
pub async fn log_stderr(stderr: Option<ChildStderr>, name: String) {
    let Some(stderr) = stderr else { return };
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    while let Ok(Line::Full | Line::Last) =
        read_line(&mut reader, &mut buf, 16 * 1024, Overflow::Split).await
    {
        eprintln!(
            "agentwire-relay: [{name}] {}",
            String::from_utf8_lossy(&buf).trim_end()
        );
    }
}
