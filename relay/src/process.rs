//! Starting an agent in its own process group, and stopping the whole group.

use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tokio::time::{sleep, timeout, Instant};

use crate::cli::Agent;

/// Starts `agent` with piped stdio, as the leader of a new process group so that everything it
/// starts can be signalled together. The token is not passed on in its environment.
pub fn spawn(agent: &Agent) -> std::io::Result<Child> {
    let mut command = Command::new(&agent.program);
    command
        .args(&agent.args)
        .env_remove("AGENTWIRE_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    die_with_the_relay(&mut command);
    command.spawn()
}

/// A relay ended by SIGKILL runs none of its stop sequence; on Linux the kernel then sends
/// SIGKILL to each agent (PR_SET_PDEATHSIG), so none is left orphaned, even one that ignores
/// the EOF on its stdin. The signal fires when the spawning *thread* ends: the relay spawns
/// from its one runtime thread (main.rs uses the current-thread runtime), which lives as long
/// as the process.
#[cfg(target_os = "linux")]
fn die_with_the_relay(command: &mut Command) {
    let relay = std::process::id();
    // SAFETY: between fork and exec only async-signal-safe calls (prctl, getppid, raise).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The relay may have died before prctl took effect.
            if u32::try_from(libc::getppid()).ok() != Some(relay) {
                libc::raise(libc::SIGKILL);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_the_relay(_: &mut Command) {}

/// The task that waits for (and reaps) the agent process.
pub type Waiter = JoinHandle<std::io::Result<ExitStatus>>;

pub fn wait_in_background(mut child: Child) -> Waiter {
    tokio::spawn(async move { child.wait().await })
}

/// Sends `signal` to every process of the group led by `pgid`; false if none is left.
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else { return false };
    // SAFETY: killpg has no memory effects; a stale group id yields ESRCH.
    pgid > 1 && unsafe { libc::killpg(pgid, signal) } == 0
}

/// Stops an agent whose stdin was just closed: wait `grace` for it to leave on its own, then
/// SIGTERM the group, wait `grace` again, then SIGKILL. Returns the leader's exit status.
pub async fn stop(pgid: u32, waiter: &mut Waiter, grace: Duration) -> Option<ExitStatus> {
    if let Ok(joined) = timeout(grace, &mut *waiter).await {
        return joined.ok().and_then(Result::ok);
    }
    signal_group(pgid, libc::SIGTERM);
    if let Ok(joined) = timeout(grace, &mut *waiter).await {
        return joined.ok().and_then(Result::ok);
    }
    signal_group(pgid, libc::SIGKILL);
    waiter.await.ok().and_then(Result::ok)
}

/// After the leader has exited, ends what is left of its group (background children it
/// started): SIGTERM, up to `grace` to leave, then SIGKILL.
pub async fn end_group(pgid: u32, grace: Duration) {
    if !signal_group(pgid, libc::SIGTERM) {
        return;
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        sleep(Duration::from_millis(20)).await;
        if !signal_group(pgid, 0) {
            return;
        }
    }
    signal_group(pgid, libc::SIGKILL);
}

/// How a process ended, for a person reading the log: "exit code 0", "killed by SIGTERM".
pub fn ending_words(code: Option<i32>, signal: Option<&str>) -> String {
    match (code, signal) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!("killed by {s}"),
        (None, None) => "status unknown".to_owned(),
    }
}

/// `(code, signal)` of an exit status, as the side channel reports it.
pub fn describe(status: Option<ExitStatus>) -> (Option<i32>, Option<i32>) {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(s) => (s.code(), s.signal()),
        None => (None, None),
    }
}

#[cfg(test)]
mod ending_tests {
    #[test]
    fn endings_read_as_words() {
        assert_eq!(super::ending_words(Some(0), None), "exit code 0");
        assert_eq!(super::ending_words(None, Some("SIGTERM")), "killed by SIGTERM");
        assert_eq!(super::ending_words(None, None), "status unknown");
    }
}
