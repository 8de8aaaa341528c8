//! Capabilities of both sides, v1 and v2 read into one model and written back.
//!
//! v1 spells capabilities as booleans (`"loadSession": true`), v2 as object markers
//! (`"load": {}`; omitted or `null` = unsupported), and the two nest differently. One
//! table (`FlagSpec`) says, per flag of the unified model, how each version spells it;
//! reading and writing are written once, over that table and the model's flags as booleans.
//! What the table does not know (unknown keys, `_meta`, a marker's own content, explicit
//! `false`) stays in `extensions` and is merged back on writing, so a read followed by a write
//! in the same version gives the same JSON.

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
pub struct FlagSpec {
    /// Dotted name, used by the method table and in refusals ("session.load").
    pub name: &'static str,
    pub v1: Spelling,
    pub v2: Spelling,
}

impl FlagSpec {
    pub fn spelling(&self, version: u16) -> Spelling {
        if version >= 2 {
            self.v2
        } else {
            self.v1
        }
    }
}

/// A unified capability model of one side: its flags as data (`FLAGS`) and its fields in the
/// same order (`capability_model!` writes both from one list). What reads and writes a model
/// is written once, over the flags as a list of booleans, not once per model.
pub trait CapabilityModel: Clone + Default + Sized + 'static {
    const FLAGS: &'static [FlagSpec];
    /// The flags' values, in the order of `FLAGS`.
    fn bits(&self) -> Vec<bool>;
    /// The flags' fields, in the order of `FLAGS`, and the extensions.
    fn parts(&mut self) -> (Vec<&mut bool>, &mut Map<String, Value>);
    fn extensions(&self) -> &Map<String, Value>;

    /// The value of a flag by its dotted name; `None` for a name the model lacks.
    fn flag(&self, name: &str) -> Option<bool> {
        let i = Self::FLAGS.iter().position(|f| f.name == name)?;
        Some(self.bits()[i])
    }

    /// Reads the wire object of one version. Never fails: a non-object reads as nothing
    /// supported, wrong types read as unsupported and are kept in `extensions`.
    fn from_wire(wire: &Value, version: u16) -> Self {
        let mut model = Self::default();
        let (fields, extensions) = model.parts();
        read_wire(Self::FLAGS, fields, extensions, wire, version);
        model
    }

    /// Writes the wire object of one version: `extensions` first, then every supported
    /// flag the version can spell. Unsupported flags are omitted (omitted = unsupported).
    fn to_wire(&self, version: u16) -> Value {
        write_wire(Self::FLAGS, &self.bits(), self.extensions(), version, false)
    }

    /// The wire object as sent in one version: `to_wire`, less the groups that version has no
    /// flag of at all (v2 has no `fs`: a `_meta` given in `fs` is not sent there).
    fn to_wire_sent(&self, version: u16) -> Value {
        write_wire(Self::FLAGS, &self.bits(), self.extensions(), version, true)
    }

    /// The model as an options object: `{group: {flag: bool}, flag: bool, extensions?}`,
    /// in the order of `FLAGS`.
    fn to_model(&self) -> Value {
        write_model(Self::FLAGS, &self.bits(), self.extensions())
    }

    /// Reads the model from an options object shaped like `to_model`'s; a missing flag
    /// keeps its default, an unknown one is an error.
    fn from_model(value: &Value) -> Result<Self, String> {
        let mut model = Self::default();
        let (fields, extensions) = model.parts();
        read_model(Self::FLAGS, fields, extensions, value)?;
        Ok(model)
    }

    /// Names of the flags this model has, for tables and docs.
    fn flag_names() -> Vec<&'static str> {
        Self::FLAGS.iter().map(|f| f.name).collect()
    }
}

/// A model's `CapabilityModel`: its flags, each with its field and its spelling in v1 and v2.
macro_rules! capability_model {
    ($t:ty { $($name:literal => $($field:ident).+ : $v1:expr, $v2:expr;)* }) => {
        impl CapabilityModel for $t {
            const FLAGS: &'static [FlagSpec] = {
                use Spelling::*;
                &[$(FlagSpec { name: $name, v1: $v1, v2: $v2 }),*]
            };
            fn bits(&self) -> Vec<bool> {
                vec![$(self.$($field).+),*]
            }
            fn parts(&mut self) -> (Vec<&mut bool>, &mut Map<String, Value>) {
                (vec![$(&mut self.$($field).+),*], &mut self.extensions)
            }
            fn extensions(&self) -> &Map<String, Value> {
                &self.extensions
            }
        }
    };
}

/// `CapabilityModel::from_wire` for any model.
fn read_wire(
    flags: &[FlagSpec],
    mut fields: Vec<&mut bool>,
    extensions: &mut Map<String, Value>,
    wire: &Value,
    version: u16,
) {
    let mut rest = match wire {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    if version < 2 {
        normalize_v1_aliases(&mut rest);
    }
    for (spec, field) in flags.iter().zip(fields.iter_mut()) {
        **field = match spec.spelling(version) {
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
    for (i, spec) in flags.iter().enumerate() {
        if let Spelling::Implied(source) = spec.spelling(version) {
            let on = flags
                .iter()
                .position(|f| f.name == source)
                .is_some_and(|j| *fields[j]);
            *fields[i] = on;
        }
    }
    *extensions = rest;
}

/// `CapabilityModel::to_wire` (and, `sent`, `to_wire_sent`) for any model.
fn write_wire(
    flags: &[FlagSpec],
    bits: &[bool],
    extensions: &Map<String, Value>,
    version: u16,
    sent: bool,
) -> Value {
    let mut out = extensions.clone();
    for (spec, _) in flags.iter().zip(bits).filter(|(_, on)| **on) {
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
    for group in META_GROUPS.iter().filter(|_| sent) {
        let mut of_group = flags
            .iter()
            .filter(|f| f.name.split_once('.').is_some_and(|(g, _)| g == *group))
            .peekable();
        if of_group.peek().is_some() && of_group.all(|f| f.spelling(version) == Spelling::Absent) {
            out.remove(*group);
        }
    }
    Value::Object(out)
}

/// `CapabilityModel::to_model` for any model.
fn write_model(flags: &[FlagSpec], bits: &[bool], extensions: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    for (spec, on) in flags.iter().zip(bits) {
        let path: Vec<&str> = spec.name.split('.').collect();
        set(&mut out, &path, Value::Bool(*on));
    }
    if !extensions.is_empty() {
        out.insert("extensions".into(), Value::Object(extensions.clone()));
    }
    Value::Object(out)
}

/// `CapabilityModel::from_model` for any model.
fn read_model(
    flags: &[FlagSpec],
    mut fields: Vec<&mut bool>,
    extensions: &mut Map<String, Value>,
    value: &Value,
) -> Result<(), String> {
    let top = Fields::of(value)?;
    let spec = |name: &str| flags.iter().position(|f| f.name == name);
    // `_meta` is allowed wherever the schema allows it: on the object and in each group.
    // It is sent as given, at the same place.
    let mut metas: Vec<(&str, &Value)> = Vec::new();
    for (key, v) in top.members {
        if key == "extensions" {
            top.object(key, extensions);
            top.done()?;
        } else if key == "_meta" {
            metas.push(("", v));
        } else if let Some(i) = spec(key).filter(|_| !key.contains('.')) {
            top.bool(key, fields[i]);
            top.done()?;
        } else if flags
            .iter()
            .any(|f| f.name.split_once('.').is_some_and(|(g, _)| g == key))
        {
            let group = Fields::of(v).map_err(|e| format!("{key}: {e}"))?;
            for (inner, value) in group.members {
                if inner == "_meta" {
                    if !META_GROUPS.contains(&key.as_str()) {
                        return Err(format!("`{key}._meta`: `{key}` is spelled differently in v1 and v2; give `_meta` in `extensions`, in the wire shape"));
                    }
                    metas.push((key, value));
                    continue;
                }
                let i = spec(&format!("{key}.{inner}"))
                    .ok_or_else(|| format!("unknown member `{key}.{inner}`"))?;
                group.bool(inner, fields[i]);
                group.done().map_err(|e| format!("{key}: {e}"))?;
            }
        } else {
            return Err(format!("unknown member `{key}`"));
        }
    }
    for (group, meta) in metas {
        let place = match group {
            "" => Some(&mut *extensions),
            g => extensions
                .entry(g)
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut(),
        };
        if let Some(place) = place {
            place.insert("_meta".into(), meta.clone());
        }
    }
    Ok(())
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

capability_model! {
    ClientCapabilities {
        "fs.readTextFile" => fs.read_text_file:
            Bool(&["fs", "readTextFile"]), Absent;
        "fs.writeTextFile" => fs.write_text_file:
            Bool(&["fs", "writeTextFile"]), Absent;
        "terminal" => terminal:
            Bool(&["terminal"]), Absent;
        "auth.terminal" => auth.terminal:
            Bool(&["auth", "terminal"]), Marker(&["auth", "terminal"]);
        "elicitation.form" => elicitation.form:
            Marker(&["elicitation", "form"]), Marker(&["elicitation", "form"]);
        "elicitation.url" => elicitation.url:
            Marker(&["elicitation", "url"]), Marker(&["elicitation", "url"]);
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

capability_model! {
    AgentCapabilities {
        "session.new" => session.new:
            Always, Marker(&["session"]);
        "session.load" => session.load:
            Bool(&["loadSession"]), Marker(&["session", "load"]);
        "session.list" => session.list:
            Marker(&["sessionCapabilities", "list"]), Implied("session.new");
        "session.delete" => session.delete:
            Marker(&["sessionCapabilities", "delete"]), Marker(&["session", "delete"]);
        "session.additionalDirectories" => session.additional_directories:
            Marker(&["sessionCapabilities", "additionalDirectories"]), Marker(&["session", "additionalDirectories"]);
        "session.resume" => session.resume:
            Marker(&["sessionCapabilities", "resume"]), Implied("session.new");
        "session.close" => session.close:
            Marker(&["sessionCapabilities", "close"]), Implied("session.new");
        "session.fork" => session.fork:
            Marker(&["sessionCapabilities", "fork"]), Marker(&["session", "fork"]);
        "prompt.image" => prompt.image:
            Bool(&["promptCapabilities", "image"]), Marker(&["session", "prompt", "image"]);
        "prompt.audio" => prompt.audio:
            Bool(&["promptCapabilities", "audio"]), Marker(&["session", "prompt", "audio"]);
        "prompt.embeddedContext" => prompt.embedded_context:
            Bool(&["promptCapabilities", "embeddedContext"]), Marker(&["session", "prompt", "embeddedContext"]);
        "mcp.stdio" => mcp.stdio:
            Always, Marker(&["session", "mcp", "stdio"]);
        "mcp.http" => mcp.http:
            Bool(&["mcpCapabilities", "http"]), Marker(&["session", "mcp", "http"]);
        "mcp.sse" => mcp.sse:
            Bool(&["mcpCapabilities", "sse"]), Absent;
        "mcp.acp" => mcp.acp:
            Bool(&["mcpCapabilities", "acp"]), Marker(&["session", "mcp", "acp"]);
        "auth.logout" => auth.logout:
            Marker(&["auth", "logout"]), Marker(&["auth", "logout"]);
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

// Natively: the tests build values with serde_json (`json::Value` is the module's own tree
// in wasm32, where `wasm-pack test` compiles them too).
#[cfg(all(test, not(target_arch = "wasm32")))]
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

    /// The dotted paths of a value's boolean leaves, with their values.
    fn leaves(v: &Value, at: &str, out: &mut Vec<(String, bool)>) {
        match v {
            Value::Bool(b) => out.push((at.to_owned(), *b)),
            Value::Object(m) => m
                .iter()
                .for_each(|(k, v)| leaves(v, [at, k].join(".").trim_start_matches('.'), out)),
            _ => {}
        }
    }

    /// Each flag's field is the Rust field of its name: with only the flag's field set, the
    /// structs' own serialization (their derived field names) has that one field set.
    fn each_flag_is_its_field<T: CapabilityModel>(fields: fn(&T) -> Value) {
        for (i, flag) in T::FLAGS.iter().enumerate() {
            let mut model = T::default();
            for (j, field) in model.parts().0.into_iter().enumerate() {
                *field = i == j;
            }
            let mut all = Vec::new();
            leaves(&fields(&model), "", &mut all);
            assert_eq!(all.len(), T::FLAGS.len(), "every field is a flag");
            let on: Vec<&str> = all.iter().filter(|(_, b)| *b).map(|(p, _)| &**p).collect();
            assert_eq!(on, [flag.name]);
        }
    }

    #[test]
    fn each_flag_reads_and_writes_its_own_field() {
        each_flag_is_its_field::<ClientCapabilities>(|c| {
            serde_json::json!({"fs": c.fs, "terminal": c.terminal, "auth": c.auth,
                "elicitation": c.elicitation})
        });
        each_flag_is_its_field::<AgentCapabilities>(|c| {
            serde_json::json!({"session": c.session, "prompt": c.prompt, "mcp": c.mcp,
                "auth": c.auth})
        });
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
