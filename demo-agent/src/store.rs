//! Sessions kept across restarts: one JSON file per session in the data folder, written
//! atomically (a temporary file renamed over the old one), so a crash never leaves half a
//! conversation behind. The folder is the user's own (0700, files 0600): conversations are
//! private, and what the agent replays as its own words cannot be planted by another user.

use crate::updates::Update;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub session_id: String,
    pub cwd: String,
    #[serde(default)]
    pub title: Option<String>,
    /// Every update of the conversation, message chunks merged.
    #[serde(default)]
    pub history: Vec<Update>,
}

pub struct Store {
    dir: PathBuf,
}

/// At most this many sessions are kept; saving one more removes the least recently saved.
pub const MAX_SESSIONS: usize = 1000;

/// `$XDG_STATE_HOME/agentwire-demo-agent`, else `~/.local/state/agentwire-demo-agent`: the
/// user's own state folder, never a shared one (another local user could read or plant
/// conversations there).
pub fn default_dir() -> std::io::Result<PathBuf> {
    let nonempty = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base =
        nonempty("XDG_STATE_HOME").or_else(|| nonempty("HOME").map(|h| h.join(".local/state")));
    base.map(|b| b.join("agentwire-demo-agent")).ok_or_else(|| {
        std::io::Error::other("neither XDG_STATE_HOME nor HOME is set; give --data-dir")
    })
}

/// Session ids name files: only these characters are accepted, so no id can leave the folder.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Store {
    /// Opens (creating it 0700) a folder only this user can use: one owned by another user,
    /// or writable by others, or a symlink, is refused; one of ours that others can read is
    /// closed to them.
    pub fn open(dir: &Path) -> std::io::Result<Store> {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let meta = std::fs::symlink_metadata(dir)?;
        let refuse = |why: String| {
            Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                why,
            ))
        };
        if !meta.is_dir() {
            return refuse(format!(
                "{} is not a folder (a symlink is not followed)",
                dir.display()
            ));
        }
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return refuse(format!(
                "{} belongs to user {}, not to this user ({me})",
                dir.display(),
                meta.uid()
            ));
        }
        if meta.mode() & 0o022 != 0 {
            return refuse(format!(
                "{} is writable by other users (mode {:o})",
                dir.display(),
                meta.mode() & 0o777
            ));
        }
        if meta.mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(Store {
            dir: dir.to_owned(),
        })
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    pub fn load(&self, id: &str) -> Option<Record> {
        if !valid_id(id) {
            return None;
        }
        let text = std::fs::read_to_string(self.path(id)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Writes a new file 0600 beside the old one and renames it over it. The new file is
    /// created, never opened: O_CREAT|O_EXCL|O_NOFOLLOW, under a name no one can guess, so
    /// nothing planted in the folder can redirect the write.
    pub fn save(&self, record: &Record) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        if !valid_id(&record.session_id) {
            return Err(std::io::Error::other("invalid session id"));
        }
        let text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
        let (tmp, mut file) = (0..16)
            .find_map(|attempt| {
                let tmp = self.dir.join(format!(
                    ".{}.{}.tmp",
                    record.session_id,
                    unguessable(attempt)
                ));
                let opened = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .custom_flags(libc::O_NOFOLLOW)
                    .mode(0o600)
                    .open(&tmp);
                opened.ok().map(|f| (tmp, f))
            })
            .ok_or_else(|| {
                std::io::Error::other("no temporary file could be created in the data folder")
            })?;
        let written = file
            .write_all(text.as_bytes())
            .and_then(|_| file.sync_all());
        if let Err(e) = written.and_then(|_| std::fs::rename(&tmp, self.path(&record.session_id))) {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        self.keep_at_most(MAX_SESSIONS);
        Ok(())
    }

    /// Removes the least recently saved sessions past `max`.
    fn keep_at_most(&self, max: usize) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut saved: Vec<(std::time::SystemTime, PathBuf)> = entries
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.ends_with(".json") && !n.starts_with('.'))
            })
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if saved.len() <= max {
            return;
        }
        saved.sort();
        for (_, path) in &saved[..saved.len() - max] {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Every stored session, sorted by id.
    pub fn list(&self) -> Vec<Record> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut records: Vec<Record> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                e.file_name()
                    .to_str()
                    .and_then(|n| n.strip_suffix(".json"))
                    .map(str::to_owned)
            })
            .filter_map(|id| self.load(&id))
            .collect();
        records.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        records
    }

    /// A fresh session id: unique across processes sharing the folder.
    pub fn fresh_id(&self) -> String {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mut n = 0u32;
        loop {
            let id = format!("sess_{:x}{:x}{n}", nanos, std::process::id());
            if !self.path(&id).exists() {
                return id;
            }
            n += 1;
        }
    }
}

/// A name part no other user can predict: the clock's nanoseconds, the pid and the attempt,
/// mixed through the standard library's randomly keyed hasher.
fn unguessable(attempt: u32) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    format!("{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_leave_the_folder_are_refused() {
        for (id, ok) in [
            ("sess_1a", true),
            ("a-b_C9", true),
            ("", false),
            ("../x", false),
            ("a/b", false),
            ("a.json", false),
            ("é", false),
        ] {
            assert_eq!(valid_id(id), ok, "{id:?}");
        }
    }

    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "agentwire-demo-store-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn record(id: &str) -> Record {
        Record {
            session_id: id.into(),
            cwd: "/w".into(),
            title: None,
            history: vec![Update::User {
                message_id: "m".into(),
                text: "hi".into(),
            }],
        }
    }

    #[test]
    fn the_folder_is_0700_and_the_files_0600() {
        let dir = scratch("modes").join("nested");
        let store = Store::open(&dir).unwrap();
        store.save(&record("sess_a")).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        assert_eq!(
            std::fs::metadata(dir.join("sess_a.json")).unwrap().mode() & 0o777,
            0o600
        );
        // An own folder others could read is closed to them.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        Store::open(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    }

    #[test]
    fn a_folder_others_can_write_or_that_is_not_ours_is_refused() {
        let dir = scratch("shared");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = Store::open(&dir).err().expect("refused");
        assert!(e.to_string().contains("writable by other users"), "{e}");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let link = scratch("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(Store::open(&link)
            .err()
            .expect("refused")
            .to_string()
            .contains("symlink"));
        // Another user's folder (the tests run as root here, which can give it away).
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            let c = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path; chown has no other precondition.
            assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
            assert!(Store::open(&dir)
                .err()
                .expect("refused")
                .to_string()
                .contains("belongs to user 65534"));
        }
        let _ = std::fs::remove_file(&link);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_planted_symlink_never_redirects_a_save() {
        let dir = scratch("plant");
        let store = Store::open(&dir).unwrap();
        let victim = scratch("victim-file");
        std::fs::write(&victim, "precious").unwrap();
        // Where the old naming put the temporary file, and the session file itself.
        std::os::unix::fs::symlink(
            &victim,
            dir.join(format!(".sess_b.{}.tmp", std::process::id())),
        )
        .unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("sess_b.json")).unwrap();
        store.save(&record("sess_b")).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            std::fs::symlink_metadata(dir.join("sess_b.json"))
                .unwrap()
                .is_file(),
            "the session file replaced the link"
        );
        let _ = std::fs::remove_file(&victim);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn past_the_cap_the_least_recently_saved_go() {
        let dir = scratch("cap");
        let store = Store::open(&dir).unwrap();
        for i in 0..5 {
            store.save(&record(&format!("sess_{i}"))).unwrap();
            // Distinct modification times, oldest first.
            let t =
                std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 + i);
            std::fs::File::options()
                .write(true)
                .open(dir.join(format!("sess_{i}.json")))
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        store.keep_at_most(3);
        let left: Vec<String> = store.list().into_iter().map(|r| r.session_id).collect();
        assert_eq!(left, ["sess_2", "sess_3", "sess_4"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_saved_record_loads_back_and_is_listed() {
        let dir = std::env::temp_dir().join(format!("agentwire-demo-store-{}", std::process::id()));
        let store = Store::open(&dir).unwrap();
        let id = store.fresh_id();
        let record = Record {
            session_id: id.clone(),
            cwd: "/w".into(),
            title: Some("t".into()),
            history: vec![Update::User {
                message_id: "m".into(),
                text: "hi".into(),
            }],
        };
        store.save(&record).unwrap();
        assert_eq!(store.load(&id), Some(record.clone()));
        assert_eq!(store.load("../etc/passwd"), None);
        assert!(store.list().contains(&record));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
