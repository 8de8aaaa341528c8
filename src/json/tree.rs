//! The module's own tree of JSON values: serde_json's `Value` and `Map` as far as the library
//! uses them, an object's members in a `Vec` in the order they came. serde_json keeps that
//! order (`preserve_order`) with an `IndexMap`, which brings hashbrown's table and std's hasher
//! into the module; most objects have a handful of members, found by a scan, and a large one
//! gets an index of its own (`Map`), 4.4–5.0 KB smaller gzipped (docs/BENCHMARKS.md "A tree of
//! values of the module's own"). The WebAssembly module uses this tree (`json::Value`); native
//! code keeps serde_json's, which the relay, the demo agent and the tests speak. `tests` holds
//! the two to one behaviour.

#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use serde_json::Number;
use std::borrow::Borrow;
use std::fmt;

/// A JSON value; serde_json's `Value` with the same variants.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map<String, Value>),
}

/// An object's members in the order they came; a member set again keeps its place, as
/// serde_json's `preserve_order` map does. Only `Map<String, Value>` exists; the parameters
/// are there so that code names it as it names serde_json's.
///
/// An object of a few members is searched by a scan. Past `SMALL`, an index finds a member by
/// its name's hash (open addressing, positions in the members plus one, at most half full), so
/// that a peer's object of a million members is read, looked up and merged in linear time, as
/// with serde_json's map. The index hashes with a key drawn when the module first indexes an
/// object (`index_key`), so that a peer cannot choose names that collide.
#[derive(Clone, Default)]
pub struct Map<K = String, V = Value> {
    members: Vec<(K, V)>,
    slots: Vec<u32>,
}

/// Objects up to this many members have no index.
const SMALL: usize = 8;

/// The indexes' hash key, drawn once: `Math.random` in the module (std's hasher had no better
/// source in wasm32-unknown-unknown: it keyed itself with two memory addresses); natively,
/// where the library's tree is serde_json's, a constant for the tests.
fn index_key() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
    static KEY: AtomicU32 = AtomicU32::new(0);
    if KEY.load(Relaxed) == 0 {
        #[cfg(target_arch = "wasm32")]
        let drawn = (js_sys::Math::random() * 4_294_967_296.0) as u32 | 1;
        #[cfg(not(target_arch = "wasm32"))]
        let drawn = 0x811c_9dc5;
        KEY.store(drawn, Relaxed);
    }
    KEY.load(Relaxed)
}

/// FNV-1a from the key, a few instructions a byte, then murmur3's finalizer, so that every bit
/// of the state reaches the low bits the index uses.
fn hash(key: u32, name: &str) -> usize {
    let h = name
        .bytes()
        .fold(key, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    let h = (h ^ (h >> 16)).wrapping_mul(0x85eb_ca6b);
    let h = (h ^ (h >> 13)).wrapping_mul(0xc2b2_ae35);
    (h ^ (h >> 16)) as usize
}

/// What indexes a value (`value["key"]`, `value[0]`, `value.get(..)`), as in serde_json.
pub trait Index {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value>;
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value>;
}

impl Index for usize {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_array()?.get(*self)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        v.as_array_mut()?.get_mut(*self)
    }
}

impl Index for str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_object()?.get(self)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        v.as_object_mut()?.get_mut(self)
    }
}

impl<T: Index + ?Sized> Index for &T {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        (**self).index_into(v)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        (**self).index_into_mut(v)
    }
}

static NULL: Value = Value::Null;

impl<I: Index> std::ops::Index<I> for Value {
    type Output = Value;
    /// `null` where there is nothing, as serde_json answers.
    fn index(&self, i: I) -> &Value {
        i.index_into(self).unwrap_or(&NULL)
    }
}

impl Value {
    pub fn get<I: Index>(&self, i: I) -> Option<&Value> {
        i.index_into(self)
    }
    pub fn get_mut<I: Index>(&mut self, i: I) -> Option<&mut Value> {
        i.index_into_mut(self)
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_object_mut(&mut self) -> Option<&mut Map<String, Value>> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
    /// The value, `null` left in its place.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

impl Map<String, Value> {
    pub fn new() -> Self {
        Map::default()
    }
    pub fn len(&self) -> usize {
        self.members.len()
    }
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
    fn position(&self, key: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return self.members.iter().position(|(k, _)| k == key);
        }
        let mask = self.slots.len() - 1;
        let mut s = hash(index_key(), key) & mask;
        loop {
            let p = (self.slots[s] as usize).checked_sub(1)?;
            if self.members[p].0 == key {
                return Some(p);
            }
            s = (s + 1) & mask;
        }
    }
    /// Puts member `p` in the index.
    fn place(&mut self, p: usize) {
        let mask = self.slots.len() - 1;
        let mut s = hash(index_key(), &self.members[p].0) & mask;
        while self.slots[s] != 0 {
            s = (s + 1) & mask;
        }
        self.slots[s] = p as u32 + 1;
    }
    /// Builds the index again (none for a small object), twice as many slots as members.
    fn reindex(&mut self) {
        self.slots.clear();
        if self.members.len() > SMALL {
            self.slots
                .resize((self.members.len() * 2).next_power_of_two(), 0);
            (0..self.members.len()).for_each(|p| self.place(p));
        }
    }
    /// Adds a member that is not there; its position.
    fn push(&mut self, key: String, value: Value) -> usize {
        self.members.push((key, value));
        let p = self.members.len() - 1;
        if self.members.len() > SMALL {
            if self.slots.len() < 2 * self.members.len() {
                self.reindex();
            } else {
                self.place(p);
            }
        }
        p
    }
    pub fn get<Q: Borrow<str> + ?Sized>(&self, key: &Q) -> Option<&Value> {
        self.position(key.borrow()).map(|i| &self.members[i].1)
    }
    pub fn get_mut<Q: Borrow<str> + ?Sized>(&mut self, key: &Q) -> Option<&mut Value> {
        self.position(key.borrow()).map(|i| &mut self.members[i].1)
    }
    pub fn contains_key<Q: Borrow<str> + ?Sized>(&self, key: &Q) -> bool {
        self.position(key.borrow()).is_some()
    }
    /// Sets a member; one already there keeps its place and gives back its old value.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.members[i].1, value)),
            None => {
                self.push(key, value);
                None
            }
        }
    }
    /// Removes a member, the last one taking its place: serde_json's `remove` with
    /// `preserve_order` (`swap_remove`).
    pub fn remove<Q: Borrow<str> + ?Sized>(&mut self, key: &Q) -> Option<Value> {
        let i = self.position(key.borrow())?;
        let (_, value) = self.members.swap_remove(i);
        self.reindex();
        Some(value)
    }
    pub fn entry(&mut self, key: impl Into<String>) -> Entry<'_> {
        let key = key.into();
        let at = self.position(&key);
        Entry { map: self, key, at }
    }
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.members.iter())
    }
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.members.iter_mut())
    }
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.members.iter().map(|(k, _)| k)
    }
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.members.iter().map(|(_, v)| v)
    }
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut Value) -> bool) {
        self.members.retain_mut(|(k, v)| keep(k, v));
        self.reindex();
    }
}

/// A member that may or may not be there (`Map::entry`).
pub struct Entry<'m> {
    map: &'m mut Map<String, Value>,
    key: String,
    at: Option<usize>,
}

impl<'m> Entry<'m> {
    pub fn or_insert_with(self, make: impl FnOnce() -> Value) -> &'m mut Value {
        let i = match self.at {
            Some(i) => i,
            None => self.map.push(self.key, make()),
        };
        &mut self.map.members[i].1
    }
    pub fn or_insert(self, value: Value) -> &'m mut Value {
        self.or_insert_with(|| value)
    }
}

pub struct Iter<'m>(std::slice::Iter<'m, (String, Value)>);

impl<'m> Iterator for Iter<'m> {
    type Item = (&'m String, &'m Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
}

pub struct IterMut<'m>(std::slice::IterMut<'m, (String, Value)>);

impl<'m> Iterator for IterMut<'m> {
    type Item = (&'m String, &'m mut Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }
}

impl<'m> IntoIterator for &'m Map<String, Value> {
    type Item = (&'m String, &'m Value);
    type IntoIter = Iter<'m>;
    fn into_iter(self) -> Iter<'m> {
        self.iter()
    }
}

impl<'m> IntoIterator for &'m mut Map<String, Value> {
    type Item = (&'m String, &'m mut Value);
    type IntoIter = IterMut<'m>;
    fn into_iter(self) -> IterMut<'m> {
        self.iter_mut()
    }
}

impl IntoIterator for Map<String, Value> {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.members.into_iter()
    }
}

impl FromIterator<(String, Value)> for Map<String, Value> {
    fn from_iter<T: IntoIterator<Item = (String, Value)>>(iter: T) -> Self {
        let mut m = Map::new();
        m.extend(iter);
        m
    }
}

impl Extend<(String, Value)> for Map<String, Value> {
    fn extend<T: IntoIterator<Item = (String, Value)>>(&mut self, iter: T) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

/// Two objects are equal when they have the same members, in any order, as serde_json's maps.
impl PartialEq for Map<String, Value> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl fmt::Debug for Map<String, Value> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

macro_rules! value_from {
    ($($t:ty => $v:ident $(via $conv:expr)?),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::$v($($conv)?(x))
            }
        }
    )*};
}

value_from! {
    bool => Bool,
    String => String,
    Map<String, Value> => Object,
    Number => Number,
    u64 => Number via Number::from,
    i64 => Number via Number::from,
    i32 => Number via Number::from,
    u16 => Number via Number::from,
    usize => Number via Number::from,
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(items: Vec<T>) -> Value {
        Value::Array(items.into_iter().map(Into::into).collect())
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}

impl From<f64> for Value {
    /// A number, or `null` for one JSON cannot write, as serde_json converts.
    fn from(x: f64) -> Value {
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(x) => s.serialize_str(x),
            Value::Array(a) => s.collect_seq(a),
            Value::Object(m) => m.serialize(s),
        }
    }
}

impl serde::Serialize for Map<String, Value> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

/// Read through serde_json's tree: the types that hold a tree derive `Deserialize`, which the
/// module never calls, and one visitor is enough for both.
impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        serde_json::Value::deserialize(d).map(Value::from)
    }
}

impl<'de> serde::Deserialize<'de> for Map<String, Value> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Object(m) => Ok(m),
            _ => Err(serde::de::Error::custom("expected an object")),
        }
    }
}

impl From<serde_json::Value> for Value {
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n),
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(a) => Value::Array(a.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(m) => {
                Value::Object(m.into_iter().map(|(k, v)| (k, Value::from(v))).collect())
            }
        }
    }
}

// Natively only: proptest is not built for wasm32 (`wasm-pack test` compiles the lib's tests too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::{Map, Value};
    use proptest::prelude::*;

    /// What a test does to a map, to both maps alike.
    #[derive(Clone, Debug)]
    enum Op {
        Insert(String, i64),
        Remove(String),
        Entry(String, i64),
        Retain(i64),
        Get(String),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Enough names that an object passes `SMALL` and is indexed, few enough to repeat.
        let key = "[a-p]{1,2}";
        prop_oneof![
            (key, any::<i64>()).prop_map(|(k, v)| Op::Insert(k, v)),
            key.prop_map(Op::Remove),
            (key, any::<i64>()).prop_map(|(k, v)| Op::Entry(k, v)),
            (0i64..4).prop_map(Op::Retain),
            key.prop_map(Op::Get),
        ]
    }

    /// The members of each map, in order, as text.
    fn ours(m: &Map) -> Vec<(String, String)> {
        m.iter().map(|(k, v)| (k.clone(), text(v))).collect()
    }
    fn theirs(m: &serde_json::Map<String, serde_json::Value>) -> Vec<(String, String)> {
        m.iter().map(|(k, v)| (k.clone(), v.to_string())).collect()
    }
    fn text(v: &Value) -> String {
        serde_json::to_string(v).unwrap()
    }

    proptest! {
        /// Every operation answers as on serde_json's `preserve_order` map, and leaves the
        /// members in the same order.
        #[test]
        fn a_map_behaves_as_serde_jsons(ops in proptest::collection::vec(op(), 0..160)) {
            let mut a = Map::new();
            let mut b = serde_json::Map::new();
            for op in ops {
                match op {
                    Op::Insert(k, v) => prop_assert_eq!(
                        a.insert(k.clone(), v.into()).map(|v| text(&v)),
                        b.insert(k, v.into()).map(|v| v.to_string())
                    ),
                    Op::Remove(k) => prop_assert_eq!(
                        a.remove(&k).map(|v| text(&v)),
                        b.remove(&k).map(|v| v.to_string())
                    ),
                    Op::Entry(k, v) => {
                        *a.entry(k.as_str()).or_insert_with(|| Value::from(0i64)) = v.into();
                        *b.entry(k.as_str()).or_insert_with(|| 0.into()) = v.into();
                    }
                    Op::Retain(n) => {
                        a.retain(|_, v| v.as_i64().is_some_and(|x| x.rem_euclid(4) != n));
                        b.retain(|_, v| v.as_i64().is_some_and(|x| x.rem_euclid(4) != n));
                    }
                    Op::Get(k) => {
                        prop_assert_eq!(a.get(&k).map(text), b.get(&k).map(|v| v.to_string()));
                        prop_assert_eq!(a.contains_key(&k), b.contains_key(&k));
                    }
                }
                prop_assert_eq!(ours(&a), theirs(&b));
                prop_assert_eq!(a.len(), b.len());
            }
        }

        /// A value converted from serde_json's reads and writes as it did, and equals what it
        /// equals there.
        #[test]
        fn a_value_reads_as_serde_jsons(
            v in crate::json::item::tests::properties::arb_json(),
            w in crate::json::item::tests::properties::arb_json(),
        ) {
            let (a, b) = (Value::from(v.clone()), Value::from(w.clone()));
            prop_assert_eq!(text(&a), v.to_string());
            prop_assert_eq!(crate::json::text(&a), crate::json::text(&v));
            prop_assert_eq!(a == b, v == w);
            prop_assert_eq!(a.clone() == a, true);
            for key in ["a", "_", "\"", "zz"] {
                prop_assert_eq!(a.get(key).map(text), v.get(key).map(|x| x.to_string()));
                prop_assert_eq!(text(&a[key]), v[key].to_string());
            }
            for i in 0..3 {
                prop_assert_eq!(a.get(i).map(text), v.get(i).map(|x| x.to_string()));
                prop_assert_eq!(text(&a[i]), v[i].to_string());
            }
            prop_assert_eq!(a.as_str(), v.as_str());
            prop_assert_eq!(a.as_u64(), v.as_u64());
            prop_assert_eq!(a.as_i64(), v.as_i64());
            prop_assert_eq!(a.as_bool(), v.as_bool());
            prop_assert_eq!(a.is_null(), v.is_null());
            prop_assert_eq!(a.as_array().map(Vec::len), v.as_array().map(Vec::len));
            prop_assert_eq!(a.as_object().map(Map::len), v.as_object().map(serde_json::Map::len));
        }
    }

    /// A peer's object of many members is read and merged without a scan for each: were it
    /// scanned, these 200,000 members would take 2·10^10 comparisons, minutes instead of
    /// milliseconds.
    #[test]
    fn a_large_object_is_indexed() {
        let n = 200_000;
        let mut m: Map = (0..n).map(|i| (format!("k{i}"), Value::from(i))).collect();
        m.extend((0..n).map(|i| (format!("k{}", n - 1 - i), Value::from(i))));
        assert_eq!(m.len(), n);
        assert_eq!(
            m.iter().next().map(|(k, v)| (k.as_str(), v.as_u64())),
            Some(("k0", Some(n as u64 - 1)))
        );
        assert_eq!(m.get(&format!("k{}", n - 1)), Some(&Value::from(0usize)));
        assert_eq!(m.remove("k0"), Some(Value::from(n - 1)));
        assert_eq!(
            m.keys().next().map(String::as_str),
            Some(&*format!("k{}", n - 1))
        );
        assert!(m.get("k0").is_none() && m.contains_key("k1"));
        let other = m.clone();
        assert_eq!(m, other);
    }

    /// Names chosen to fall in one slot of a 1,024-slot index under one key are spread under
    /// another: a peer that cannot know an index's key cannot make its lookups scan.
    #[test]
    fn names_that_collide_under_one_key_spread_under_another() {
        let slot = |key, name: &str| super::hash(key, name) & 1023;
        let chosen: Vec<String> = (0..)
            .map(|i| format!("n{i}"))
            .filter(|n| slot(0x1234_5679, n) == 7)
            .take(64)
            .collect();
        let mut under_another: Vec<usize> = chosen.iter().map(|n| slot(0x9e37_79b9, n)).collect();
        under_another.sort_unstable();
        under_another.dedup();
        assert!(under_another.len() > 56, "{} slots", under_another.len());
    }

    /// Two objects with the same members in another order are equal, as in serde_json.
    #[test]
    fn objects_are_equal_in_any_order() {
        let one: Value = serde_json::json!({"a": 1, "b": [true, null]}).into();
        let other: Value = serde_json::json!({"b": [true, null], "a": 1}).into();
        assert_eq!(one, other);
        assert_ne!(one, Value::from(serde_json::json!({"a": 1})));
        assert_eq!(Value::from(f64::NAN), Value::Null);
        assert_eq!(
            Value::from(vec!["a", "b"]),
            Value::from(serde_json::json!(["a", "b"]))
        );
    }
}
