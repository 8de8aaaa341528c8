//! Starting an agent in its own process group, and stopping the whole group and every
//! process it started, even one that left the group (`setsid`).

use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tokio::time::{sleep, timeout, Instant};

use crate::cli::Agent;

/// The environment variable that marks every process of one session: it is inherited by
/// whatever the agent starts, also by a process that leaves its group or session.
pub const SESSION_MARK: &str = "AGENTWIRE_RELAY_SESSION";

/// A mark no other session of this relay (or of another relay) carries.
pub fn session_mark() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

/// Starts `agent` with piped stdio, as the leader of a new process group so that everything it
/// starts can be signalled together, marked with `mark` (`SESSION_MARK`). The token is not
/// passed on in its environment.
pub fn spawn(agent: &Agent, mark: &str) -> std::io::Result<Child> {
    let mut command = Command::new(&agent.program);
    command
        .args(&agent.args)
        .env_remove("AGENTWIRE_TOKEN")
        .env(SESSION_MARK, mark)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    die_with_the_relay(&mut command);
    let child = command.spawn()?;
    if let Some(pid) = child.id() {
        leaders().insert(pid);
    }
    Ok(child)
}

/// The agents the relay started itself: tokio waits for (and reaps) each, so `reap_orphans`
/// leaves them alone.
fn leaders() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<u32>> {
    static LEADERS: std::sync::Mutex<std::collections::BTreeSet<u32>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    LEADERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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
    let pid = child.id();
    tokio::spawn(async move {
        let status = child.wait().await;
        if let Some(pid) = pid {
            leaders().remove(&pid);
        }
        status
    })
}

/// Sends `signal` to every process of the group led by `pgid`; false if none is left.
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
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

/// After the leader has exited, ends what is left of the session: its group (background
/// children it started) and every process carrying the session's mark, which finds those
/// that left the group with `setsid`. SIGTERM, up to `grace` to leave, then SIGKILL; those
/// handed to the relay (a child subreaper, see `become_subreaper`) are reaped.
pub async fn end_session(pgid: u32, mark: &str, grace: Duration) {
    let marked = marked_processes(mark);
    let term_group = signal_group(pgid, libc::SIGTERM);
    marked.iter().for_each(|&p| signal(p, libc::SIGTERM));
    let left = || signal_group(pgid, 0) || marked.iter().any(|&p| alive(p));
    if term_group || !marked.is_empty() {
        let deadline = Instant::now() + grace;
        while left() && Instant::now() < deadline {
            reap(&marked);
            sleep(Duration::from_millis(20)).await;
        }
        if left() {
            signal_group(pgid, libc::SIGKILL);
            marked.iter().for_each(|&p| signal(p, libc::SIGKILL));
        }
    }
    // SIGKILL is not ignorable: wait for the kernel to finish them, reaping what is ours.
    for _ in 0..250 {
        reap(&marked);
        if !marked.iter().any(|&p| alive(p)) {
            break;
        }
        sleep(Duration::from_millis(20)).await;
    }
}

/// Makes the relay the reaper of its agents' orphans (Linux `PR_SET_CHILD_SUBREAPER`): a
/// process an agent started and left behind is handed to the relay, not to init, so it
/// stays the relay's to end.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with these arguments only sets a flag of the calling process.
    return unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
    #[cfg(not(target_os = "linux"))]
    false
}

/// Reaps, for as long as the relay runs, its children that exited and that no task waits
/// for: processes an agent left behind, handed to the relay as their subreaper. Such a child
/// may exit after its session ended (or before it was found by its mark, when a zombie has no
/// environment left to read), so each SIGCHLD, and every 2 s in case signals merged, looks
/// for them.
pub async fn reap_orphans() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut children = signal(SignalKind::child()).ok();
    loop {
        match children.as_mut() {
            Some(s) => {
                let _ = timeout(Duration::from_secs(2), s.recv()).await;
            }
            None => sleep(Duration::from_secs(2)).await,
        }
        reap_exited_orphans();
        // A burst of exits costs one look.
        sleep(Duration::from_millis(20)).await;
    }
}

/// Reaps the relay's zombie children that are not agents it waits for; how many.
pub fn reap_exited_orphans() -> usize {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let zombies: Vec<u32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            fields.next() == Some("Z")
                && fields.next().and_then(|p| p.parse::<u32>().ok()) == Some(me)
        })
        .collect();
    let leaders = leaders();
    let orphans: Vec<libc::pid_t> = zombies
        .into_iter()
        .filter(|p| !leaders.contains(p))
        .filter_map(|p| libc::pid_t::try_from(p).ok())
        .collect();
    drop(leaders);
    reap(&orphans);
    orphans.len()
}

/// Every process of this user whose environment carries `SESSION_MARK=mark`.
fn marked_processes(mark: &str) -> Vec<libc::pid_t> {
    let needle = format!("{SESSION_MARK}={mark}").into_bytes();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == needle.as_slice()))
        })
        .collect()
}

fn signal(pid: libc::pid_t, sig: i32) {
    // SAFETY: kill has no memory effects; a gone pid yields ESRCH.
    unsafe { libc::kill(pid, sig) };
}

/// Running (not a zombie).
fn alive(pid: libc::pid_t) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// Reaps those of `pids` that became the relay's children and have exited.
fn reap(pids: &[libc::pid_t]) {
    for &pid in pids {
        let mut status = 0;
        // SAFETY: waitpid on one given pid, non-blocking; ECHILD when it is not ours.
        unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
    }
}

/// How a process ended, for a person reading the log: "exit code 0", "killed by SIGTERM".
pub fn ending_words(code: Option<i32>, signal: Option<&str>) -> String {
    match (code, signal) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!("killed by {s}"),
        (None, None) => "status unknown".to_owned(),
    }
}

/// Logs how the process `waiter` waits for ended, once it has: "`what` (pid N) ended: …".
pub fn log_ending(waiter: Waiter, what: &'static str, pid: u32) {
    tokio::spawn(async move {
        let status = waiter.await.ok().and_then(Result::ok);
        let (code, signal) = describe(status);
        let signal = signal.map(crate::frames::signal_name);
        eprintln!(
            "agentwire-relay: {what} (pid {pid}) ended: {}",
            ending_words(code, signal.as_deref())
        );
    });
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
        assert_eq!(
            super::ending_words(None, Some("SIGTERM")),
            "killed by SIGTERM"
        );
        assert_eq!(super::ending_words(None, None), "status unknown");
    }
}
