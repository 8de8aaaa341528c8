//! `View`: what a reader needs of a JSON value, whether a tree of values (a message the
//! endpoint built) or a parsed text read in place (`Item`: a message going out, written once).
//! The gates that look into params are written once over it.

use super::tape::Kind;
use super::Item;
use crate::json::Value;
use std::borrow::Cow;

pub trait View<'a>: Copy {
    /// The value of member `key` of an object.
    fn get(self, key: &str) -> Option<Self>;
    /// The text of a string, unescaped.
    fn text(self) -> Option<Cow<'a, str>>;
    /// A non-negative integer.
    fn uint(self) -> Option<u64>;
    /// The elements of an array (none for anything else).
    fn elements(self) -> Vec<Self>;
    fn is_null(self) -> bool;
}

impl<'a> View<'a> for &'a Value {
    fn get(self, key: &str) -> Option<Self> {
        Value::get(self, key)
    }
    fn text(self) -> Option<Cow<'a, str>> {
        self.as_str().map(Cow::Borrowed)
    }
    fn uint(self) -> Option<u64> {
        self.as_u64()
    }
    fn elements(self) -> Vec<Self> {
        self.as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default()
    }
    fn is_null(self) -> bool {
        Value::is_null(self)
    }
}

impl<'t, 'a> View<'a> for Item<'t, 'a> {
    fn get(self, key: &str) -> Option<Self> {
        Item::get(&self, key)
    }
    fn text(self) -> Option<Cow<'a, str>> {
        self.as_str()
    }
    fn uint(self) -> Option<u64> {
        (self.kind() == Kind::Num).then(|| Item::value(&self).as_u64())?
    }
    fn elements(self) -> Vec<Self> {
        Item::elements(&self)
    }
    fn is_null(self) -> bool {
        self.kind() == Kind::Null
    }
}
