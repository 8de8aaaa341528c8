//! Capabilities of both sides, v1 and v2 read into one model and written back.
//!
//! v1 spells capabilities as booleans (`"loadSession": true`), v2 as object markers
//! (`"load": {}`; omitted or `null` = unsupported), and the two nest differently. One
//! table (`FlagSpec`) says, per flag of the unified model, how each version spells it;
//! reading and writing are generic over that table. What the table does not know
//! (unknown keys, `_meta`, a marker's own content, explicit `false`) stays in
//! `extensions` and is merged back on writing, so a read followed by a write in the
//! same version gives the same JSON.

use crate::json::{Map, Value};
use crate::options::{deserialize_from_options, Fields, FromOptions};
use serde::{Deserialize, Serialize, Serializer};

/// How one version spells one flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// A boolean at this path (v1).
    Bool(&'static [&'static str]),
    /// An object marker at this path: an object = supported, omitted or `null` = not (v2).
    Marker(&'static [&'static str]),
    /// Not spelled: follows another flag of the same model (v2 `session` implies list/resume/close).
    Implied(&'static str),
    /// Not spelled: always supported in this version (v1 `session/new`, stdio MCP servers).
    Always,
    /// The version has no such capability.
    Absent,
}

/// One flag of a unified model and its spelling per version.
pub struct FlagSpec<T> {
    /// Dotted name, used by the method table and in refusals ("session.load").
    pub name: &'static str,
    pub field: fn(&mut T) -> &mut bool,
    pub v1: Spelling,
    pub v2: Spelling,
}

impl<T> FlagSpec<T> {
    pub fn spelling(&self, version: u16) -> Spelling {
        if version >= 2 {
            self.v2
        } else {
            self.v1
        }
    }
}

/// A unified capability model of one side.
pub trait CapabilityModel: Clone + Default + Sized + 'static {
    const FLAGS: &'static [FlagSpec<Self>];
    fn extensions(&self) -> &Map<String, Value>;
    fn extensions_mut(&mut self) -> &mut Map<String, Value>;

    /// The value of a flag by its dotted name; `None` for a name the model lacks.
    fn flag(&self, name: &str) -> Option<bool> {
        let spec = Self::FLAGS.iter().find(|f| f.name == name)?;
        let mut copy = self.clone();
        Some(*(spec.field)(&mut copy))
    }

    /// Reads the wire object of one version. Never fails: a non-object reads as nothing
    /// supported, wrong types read as unsupported and are kept in `extensions`.
    fn from_wire(wire: &Value, version: u16) -> Self {
        let mut model = Self::default();
        let mut rest = match wire {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        if version < 2 {
            normalize_v1_aliases(&mut rest);
        }
        for spec in Self::FLAGS {
            *(spec.field)(&mut model) = match spec.spelling(version) {
                Spelling::Bool(path) => {
                    let on = get(&rest, path) == Some(&Value::Bool(true));
                    if on {
                        remove(&mut rest, path);
                    }
                    on
                }
                Spelling::Marker(path) => {
                    let on = matches!(get(&rest, path), Some(Value::Object(_)));
                    if matches!(get(&rest, path), Some(Value::Object(m)) if m.is_empty()) {
                        remove(&mut rest, path);
                    }
                    on
                }
                Spelling::Always => true,
                Spelling::Absent | Spelling::Implied(_) => false,
            };
        }
        for spec in Self::FLAGS {
            if let Spelling::Implied(source) = spec.spelling(version) {
                let on = model.flag(source).unwrap_or(false);
                *(spec.field)(&mut model) = on;
            }
        }
        *model.extensions_mut() = rest;
        model
    }

    /// Writes the wire object of one version: `extensions` first, then every supported
    /// flag the version can spell. Unsupported flags are omitted (omitted = unsupported).
    fn to_wire(&self, version: u16) -> Value {
        let mut out = self.extensions().clone();
        let mut copy = self.clone();
        for spec in Self::FLAGS {
            if !*(spec.field)(&mut copy) {
                continue;
            }
            match spec.spelling(version) {
                Spelling::Bool(path) => set(&mut out, path, Value::Bool(true)),
                Spelling::Marker(path) => {
                    if !matches!(get(&out, path), Some(Value::Object(_))) {
                        set(&mut out, path, Value::Object(Map::new()));
                    }
                }
                Spelling::Implied(_) | Spelling::Always | Spelling::Absent => {}
            }
        }
        Value::Object(out)
    }

    /// The wire object as sent in one version: `to_wire`, less the groups that version has no
    /// flag of at all (v2 has no `fs`: a `_meta` given in `fs` is not sent there).
    fn to_wire_sent(&self, version: u16) -> Value {
        let mut out = self.to_wire(version);
        if let Value::Object(m) = &mut out {
            for group in META_GROUPS {
                let mut flags = Self::FLAGS
                    .iter()
                    .filter(|f| f.name.split_once('.').is_some_and(|(g, _)| g == group))
                    .peekable();
                if flags.peek().is_some() && flags.all(|f| f.spelling(version) == Spelling::Absent)
                {
                    m.remove(group);
                }
            }
        }
        out
    }

    /// The model as an options object: `{group: {flag: bool}, flag: bool, extensions?}`,
    /// in the order of `FLAGS`.
    fn to_model(&self) -> Value {
        let mut out = Map::new();
        let mut copy = self.clone();
        for spec in Self::FLAGS {
            let path: Vec<&str> = spec.name.split('.').collect();
            set(&mut out, &path, Value::Bool(*(spec.field)(&mut copy)));
        }
        if !self.extensions().is_empty() {
            out.insert(
                "extensions".into(),
                Value::Object(self.extensions().clone()),
            );
        }
        Value::Object(out)
    }

    /// Reads the model from an options object shaped like `to_model`'s; a missing flag
    /// keeps its default, an unknown one is an error.
    fn from_model(value: &Value) -> Result<Self, String> {
        let mut model = Self::default();
        let top = Fields::of(value)?;
        let spec = |name: &str| Self::FLAGS.iter().find(|f| f.name == name);
        // `_meta` is allowed wherever the schema allows it: on the object and in each group.
        // It is sent as given, at the same place.
        let mut metas: Vec<(&str, &Value)> = Vec::new();
        for (key, v) in top.0 {
            if key == "extensions" {
                top.object(key, model.extensions_mut())?;
            } else if key == "_meta" {
                metas.push(("", v));
            } else if let Some(flag) = spec(key).filter(|_| !key.contains('.')) {
                top.bool(key, (flag.field)(&mut model))?;
            } else if Self::FLAGS
                .iter()
                .any(|f| f.name.split_once('.').is_some_and(|(g, _)| g == key))
            {
                let group = Fields::of(v).map_err(|e| format!("{key}: {e}"))?;
                for (inner, value) in group.0 {
                    if inner == "_meta" {
                        if !META_GROUPS.contains(&key.as_str()) {
                            return Err(format!("`{key}._meta`: `{key}` is spelled differently in v1 and v2; give `_meta` in `extensions`, in the wire shape"));
                        }
                        metas.push((key, value));
                        continue;
                    }
                    let flag = spec(&format!("{key}.{inner}"))
                        .ok_or_else(|| format!("unknown member `{key}.{inner}`"))?;
                    group
                        .bool(inner, (flag.field)(&mut model))
                        .map_err(|e| format!("{key}: {e}"))?;
                }
            } else {
                return Err(format!("unknown member `{key}`"));
            }
        }
        for (group, meta) in metas {
            let ext = model.extensions_mut();
            let place = match group {
                "" => Some(ext),
                g => ext
                    .entry(g)
                    .or_insert_with(|| Value::Object(Map::new()))
                    .as_object_mut(),
            };
            if let Some(place) = place {
                place.insert("_meta".into(), meta.clone());
            }
        }
        Ok(model)
    }

    /// Names of the flags this model has, for tables and docs.
    fn flag_names() -> Vec<&'static str> {
        Self::FLAGS.iter().map(|f| f.name).collect()
    }
}

/// The groups of the models that are one wire object of the same name in every version that
/// spells them (`fs`, `auth`, `elicitation`), so that `_meta` given in one has one place to
/// go (a test checks this against the flag tables).
pub const META_GROUPS: [&str; 3] = ["fs", "auth", "elicitation"];

/// Seed 000 writes the agent's MCP capabilities as `mcp`, the v1 schema as
/// `mcpCapabilities`: read both (the schema's name wins when both are present).
fn normalize_v1_aliases(rest: &mut Map<String, Value>) {
    if !rest.contains_key("mcpCapabilities") {
        if let Some(Value::Object(m)) = rest.get("mcp") {
            let m = m.clone();
            rest.remove("mcp");
            rest.insert("mcpCapabilities".into(), Value::Object(m));
        }
    }
}

fn get<'a>(map: &'a Map<String, Value>, path: &[&str]) -> Option<&'a Value> {
    let (last, parents) = path.split_last()?;
    let mut cur = map;
    for key in parents {
        cur = cur.get(*key)?.as_object()?;
    }
    cur.get(*last)
}

/// Removes a leaf, and the parent objects that this removal left empty.
fn remove(map: &mut Map<String, Value>, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        map.remove(*first);
        return;
    }
    if let Some(Value::Object(child)) = map.get_mut(*first) {
        remove(child, rest);
        if child.is_empty() {
            map.remove(*first);
        }
    }
}

/// Sets a leaf, creating (or replacing non-object) parents.
fn set(map: &mut Map<String, Value>, path: &[&str], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        map.insert((*first).to_owned(), value);
        return;
    }
    let child = map
        .entry((*first).to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    if !child.is_object() {
        *child = Value::Object(Map::new());
    }
    if let Value::Object(c) = child {
        set(c, rest, value);
    }
}

// ---------------------------------------------------------------------------------------
// The client's capabilities.

/// Serialized and read as `CapabilityModel::to_model` / `from_model`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientCapabilities {
    pub fs: FsCapabilities,
    /// `terminal/*` (v1).
    pub terminal: bool,
    pub auth: ClientAuthCapabilities,
    pub elicitation: ElicitationCapabilities,
    /// Wire keys the model does not name (`_meta`, extensions, newer fields), kept from
    /// what was received and merged into what is sent.
    pub extensions: Map<String, Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct FsCapabilities {
    pub read_text_file: bool,
    pub write_text_file: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ClientAuthCapabilities {
    /// Terminal-based auth methods may be offered.
    pub terminal: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ElicitationCapabilities {
    pub form: bool,
    pub url: bool,
}

impl CapabilityModel for ClientCapabilities {
    const FLAGS: &'static [FlagSpec<Self>] = &[
        FlagSpec {
            name: "fs.readTextFile",
            field: |c| &mut c.fs.read_text_file,
            v1: Spelling::Bool(&["fs", "readTextFile"]),
            v2: Spelling::Absent,
        },
        FlagSpec {
            name: "fs.writeTextFile",
            field: |c| &mut c.fs.write_text_file,
            v1: Spelling::Bool(&["fs", "writeTextFile"]),
            v2: Spelling::Absent,
        },
        FlagSpec {
            name: "terminal",
            field: |c| &mut c.terminal,
            v1: Spelling::Bool(&["terminal"]),
            v2: Spelling::Absent,
        },
        FlagSpec {
            name: "auth.terminal",
            field: |c| &mut c.auth.terminal,
            v1: Spelling::Bool(&["auth", "terminal"]),
            v2: Spelling::Marker(&["auth", "terminal"]),
        },
        FlagSpec {
            name: "elicitation.form",
            field: |c| &mut c.elicitation.form,
            v1: Spelling::Marker(&["elicitation", "form"]),
            v2: Spelling::Marker(&["elicitation", "form"]),
        },
        FlagSpec {
            name: "elicitation.url",
            field: |c| &mut c.elicitation.url,
            v1: Spelling::Marker(&["elicitation", "url"]),
            v2: Spelling::Marker(&["elicitation", "url"]),
        },
    ];
    fn extensions(&self) -> &Map<String, Value> {
        &self.extensions
    }
    fn extensions_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.extensions
    }
}

// ---------------------------------------------------------------------------------------
// The agent's capabilities.

/// Serialized and read as `CapabilityModel::to_model` / `from_model`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentCapabilities {
    pub session: SessionCapabilities,
    pub prompt: PromptCapabilities,
    pub mcp: McpCapabilities,
    pub auth: AgentAuthCapabilities,
    /// Wire keys the model does not name, kept and merged back (see `ClientCapabilities`).
    pub extensions: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SessionCapabilities {
    /// The baseline: session/new, session/prompt, session/cancel, session/update
    /// (v1: always; v2: the `session` marker).
    pub new: bool,
    /// session/load (v1 `loadSession`, v2 seed 001 `session.load`).
    pub load: bool,
    pub list: bool,
    pub delete: bool,
    pub additional_directories: bool,
    pub resume: bool,
    pub close: bool,
    /// Unstable.
    pub fork: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct PromptCapabilities {
    pub image: bool,
    pub audio: bool,
    pub embedded_context: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct McpCapabilities {
    /// Always in v1; the `session.mcp.stdio` marker in v2.
    pub stdio: bool,
    pub http: bool,
    /// v1 only.
    pub sse: bool,
    /// MCP over ACP (`mcp/connect`, `mcp/message`, `mcp/disconnect`; unstable in both versions).
    pub acp: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AgentAuthCapabilities {
    pub logout: bool,
}

// An agent configured without saying otherwise has the baseline: sessions and stdio
// MCP servers. (Reading a wire object sets every flag from the table, defaults aside.)
impl Default for SessionCapabilities {
    fn default() -> Self {
        SessionCapabilities {
            new: true,
            load: false,
            list: false,
            delete: false,
            additional_directories: false,
            resume: false,
            close: false,
            fork: false,
        }
    }
}

impl Default for McpCapabilities {
    fn default() -> Self {
        McpCapabilities {
            stdio: true,
            http: false,
            sse: false,
            acp: false,
        }
    }
}

impl CapabilityModel for AgentCapabilities {
    const FLAGS: &'static [FlagSpec<Self>] = &[
        FlagSpec {
            name: "session.new",
            field: |c| &mut c.session.new,
            v1: Spelling::Always,
            v2: Spelling::Marker(&["session"]),
        },
        FlagSpec {
            name: "session.load",
            field: |c| &mut c.session.load,
            v1: Spelling::Bool(&["loadSession"]),
            v2: Spelling::Marker(&["session", "load"]),
        },
        FlagSpec {
            name: "session.list",
            field: |c| &mut c.session.list,
            v1: Spelling::Marker(&["sessionCapabilities", "list"]),
            v2: Spelling::Implied("session.new"),
        },
        FlagSpec {
            name: "session.delete",
            field: |c| &mut c.session.delete,
            v1: Spelling::Marker(&["sessionCapabilities", "delete"]),
            v2: Spelling::Marker(&["session", "delete"]),
        },
        FlagSpec {
            name: "session.additionalDirectories",
            field: |c| &mut c.session.additional_directories,
            v1: Spelling::Marker(&["sessionCapabilities", "additionalDirectories"]),
            v2: Spelling::Marker(&["session", "additionalDirectories"]),
        },
        FlagSpec {
            name: "session.resume",
            field: |c| &mut c.session.resume,
            v1: Spelling::Marker(&["sessionCapabilities", "resume"]),
            v2: Spelling::Implied("session.new"),
        },
        FlagSpec {
            name: "session.close",
            field: |c| &mut c.session.close,
            v1: Spelling::Marker(&["sessionCapabilities", "close"]),
            v2: Spelling::Implied("session.new"),
        },
        FlagSpec {
            name: "session.fork",
            field: |c| &mut c.session.fork,
            v1: Spelling::Marker(&["sessionCapabilities", "fork"]),
            v2: Spelling::Marker(&["session", "fork"]),
        },
        FlagSpec {
            name: "prompt.image",
            field: |c| &mut c.prompt.image,
            v1: Spelling::Bool(&["promptCapabilities", "image"]),
            v2: Spelling::Marker(&["session", "prompt", "image"]),
        },
        FlagSpec {
            name: "prompt.audio",
            field: |c| &mut c.prompt.audio,
            v1: Spelling::Bool(&["promptCapabilities", "audio"]),
            v2: Spelling::Marker(&["session", "prompt", "audio"]),
        },
        FlagSpec {
            name: "prompt.embeddedContext",
            field: |c| &mut c.prompt.embedded_context,
            v1: Spelling::Bool(&["promptCapabilities", "embeddedContext"]),
            v2: Spelling::Marker(&["session", "prompt", "embeddedContext"]),
        },
        FlagSpec {
            name: "mcp.stdio",
            field: |c| &mut c.mcp.stdio,
            v1: Spelling::Always,
            v2: Spelling::Marker(&["session", "mcp", "stdio"]),
        },
        FlagSpec {
            name: "mcp.http",
            field: |c| &mut c.mcp.http,
            v1: Spelling::Bool(&["mcpCapabilities", "http"]),
            v2: Spelling::Marker(&["session", "mcp", "http"]),
        },
        FlagSpec {
            name: "mcp.sse",
            field: |c| &mut c.mcp.sse,
            v1: Spelling::Bool(&["mcpCapabilities", "sse"]),
            v2: Spelling::Absent,
        },
        FlagSpec {
            name: "mcp.acp",
            field: |c| &mut c.mcp.acp,
            v1: Spelling::Bool(&["mcpCapabilities", "acp"]),
            v2: Spelling::Marker(&["session", "mcp", "acp"]),
        },
        FlagSpec {
            name: "auth.logout",
            field: |c| &mut c.auth.logout,
            v1: Spelling::Marker(&["auth", "logout"]),
            v2: Spelling::Marker(&["auth", "logout"]),
        },
    ];
    fn extensions(&self) -> &Map<String, Value> {
        &self.extensions
    }
    fn extensions_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.extensions
    }
}

macro_rules! model_serde {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.to_model().serialize(s)
            }
        }
        impl FromOptions for $t {
            fn from_options(value: &Value) -> Result<Self, String> {
                Self::from_model(value)
            }
        }
    )*};
}
model_serde!(ClientCapabilities, AgentCapabilities);
deserialize_from_options!(ClientCapabilities, AgentCapabilities);

#[cfg(test)]
mod tests {
    use super::*;

    /// The groups whose every flag lives under an object of the group's name, in each version.
    fn wire_object_groups<T: CapabilityModel>() -> Vec<&'static str> {
        let mut groups: Vec<&str> = T::FLAGS
            .iter()
            .filter_map(|f| f.name.split_once('.').map(|(g, _)| g))
            .collect();
        groups.dedup();
        groups.retain(|g| {
            T::FLAGS
                .iter()
                .filter(|f| f.name.starts_with(&format!("{g}.")))
                .all(|f| {
                    [f.v1, f.v2].iter().all(|s| match s {
                        Spelling::Bool(p) | Spelling::Marker(p) => p.first() == Some(g),
                        _ => true,
                    })
                })
        });
        groups
    }

    #[test]
    fn meta_groups_are_the_groups_spelled_alike_in_both_versions() {
        let mut all = wire_object_groups::<ClientCapabilities>();
        all.extend(wire_object_groups::<AgentCapabilities>());
        all.sort_unstable();
        all.dedup();
        assert_eq!(all, ["auth", "elicitation", "fs"]);
        let mut listed = META_GROUPS.to_vec();
        listed.sort_unstable();
        assert_eq!(all, listed);
    }
}
