//! Facts of the source file that glTF cannot say, kept so that id → glTF → id is exact.
//!
//! An adapter that knows such facts (frame names, MDL flags and eye position, MD2 per-frame
//! scale and translate, MD3 local origins, raw surface and shader names, …) stores them in
//! [`Scene::extras`](crate::Scene::extras) under keys of its own (`"md2.…"`, `"mdl.…"`,
//! `"md3.…"`, `"md5.…"`). The glTF writer puts them in the glTF scene's `extras` object as
//! JSON; the glTF reader fills them back in, and the adapter going the other way uses them
//! when they still describe the scene it is given (and ignores them when the model was
//! edited so that they no longer fit).
//!
//! ```
//! use idmodel_scene::{Extras, Value};
//! let mut extras = Extras::default();
//! extras.set("md2.skinwidth", Value::Int(64));
//! assert_eq!(extras.get("md2.skinwidth").and_then(Value::as_int), Some(64));
//! assert!(extras.get("md2.missing").is_none());
//! ```

use alloc::string::String;
use alloc::vec::Vec;

/// A JSON-like value (what glTF `extras` can hold), without floating-point surprises:
/// [`Value::Float`] is an `f32`, written so that it reads back as the same `f32`.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    /// JSON `null`.
    #[default]
    Null,
    /// JSON `true` / `false`.
    Bool(bool),
    /// An integer (JSON number without fraction).
    Int(i64),
    /// A single-precision float (JSON number).
    Float(f32),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<Value>),
    /// An object. A JSON reader gives its keys sorted; build objects with sorted keys so
    /// that they compare equal after a round trip.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The integer, if this is [`Value::Int`].
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Self::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The float, if this is [`Value::Float`], or a [`Value::Int`] in the `i16` range (a
    /// JSON reader may give a whole-number float as an integer).
    pub fn as_f32(&self) -> Option<f32> {
        match self {
            Self::Float(f) => Some(*f),
            Self::Int(i) => i16::try_from(*i).ok().map(f32::from),
            _ => None,
        }
    }

    /// The string, if this is [`Value::Str`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The items, if this is [`Value::List`].
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Self::List(l) => Some(l),
            _ => None,
        }
    }

    /// The boolean, if this is [`Value::Bool`].
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

/// Key–value facts of the source file (see the module docs), sorted by key (so that a
/// trip through JSON, whose objects have no order, gives back an equal value).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Extras(pub Vec<(String, Value)>);

impl Extras {
    /// The value stored under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .and_then(|i| self.0.get(i))
            .map(|(_, v)| v)
    }

    /// Stores `value` under `key`, replacing an earlier value (keys stay sorted).
    pub fn set(&mut self, key: impl Into<String>, value: Value) {
        let key = key.into();
        match self.0.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => {
                if let Some(slot) = self.0.get_mut(i) {
                    slot.1 = value;
                }
            }
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
