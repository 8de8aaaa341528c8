//! Sessions kept across restarts: one JSON file per session in the data folder, written
//! atomically (a temporary file renamed over the old one), so a crash never leaves half a
//! conversation behind.

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

/// `$XDG_STATE_HOME/agentwire-demo-agent`, or the same name under the OS temp dir.
pub fn default_dir() -> PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    base.join("agentwire-demo-agent")
}

/// Session ids name files: only these characters are accepted, so no id can leave the folder.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Store {
    pub fn open(dir: &Path) -> std::io::Result<Store> {
        std::fs::create_dir_all(dir)?;
        Ok(Store { dir: dir.to_owned() })
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

    pub fn save(&self, record: &Record) -> std::io::Result<()> {
        if !valid_id(&record.session_id) {
            return Err(std::io::Error::other("invalid session id"));
        }
        let text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
        let tmp = self.dir.join(format!(".{}.{}.tmp", record.session_id, std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, self.path(&record.session_id))
    }

    /// Every stored session, sorted by id.
    pub fn list(&self) -> Vec<Record> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut records: Vec<Record> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".json")).map(str::to_owned))
            .filter_map(|id| self.load(&id))
            .collect();
        records.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        records
    }

    /// A fresh session id: unique across processes sharing the folder.
    pub fn fresh_id(&self) -> String {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_leave_the_folder_are_refused() {
        for (id, ok) in [("sess_1a", true), ("a-b_C9", true), ("", false), ("../x", false), ("a/b", false), ("a.json", false), ("é", false)] {
            assert_eq!(valid_id(id), ok, "{id:?}");
        }
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
            history: vec![Update::User { message_id: "m".into(), text: "hi".into() }],
        };
        store.save(&record).unwrap();
        assert_eq!(store.load(&id), Some(record.clone()));
        assert_eq!(store.load("../etc/passwd"), None);
        assert!(store.list().contains(&record));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
