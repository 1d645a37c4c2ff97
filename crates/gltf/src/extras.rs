//! [`idmodel_scene::Extras`] as glTF `extras` JSON and back.
//!
//! The writer stores a scene's extras in the glTF scene's `extras` object; an importer
//! reads them back with [`from_json`]. The exporter writes each float as the shortest
//! decimal that reads back as the same `f32` (through `f64` too, as every JSON reader
//! parses); [`to_json`] gives serde_json the `f32` widened to `f64`, which narrows back
//! exactly.
//!
//! ```
//! use idmodel_scene::{Extras, Value};
//! let mut extras = Extras::default();
//! extras.set("md3.origin", Value::List(vec![Value::Float(0.1), Value::Int(-3)]));
//! extras.set("md3.name", Value::Str("models/x.md3".into()));
//! let json = idmodel_gltf::extras::to_json(&extras);
//! assert_eq!(idmodel_gltf::extras::from_json(&json), extras);
//! ```

use idmodel_scene::{Extras, Value};
use serde_json::{Map, Number};

/// The extras as a JSON object.
pub fn to_json(extras: &Extras) -> serde_json::Value {
    serde_json::Value::Object(
        extras
            .0
            .iter()
            .map(|(k, v)| (k.clone(), value_to_json(v)))
            .collect::<Map<_, _>>(),
    )
}

/// Writes the extras as a JSON object, as `serde_json` writes [`to_json`]'s value: keys
/// sorted, a repeated key written once with its last value.
pub(crate) fn write_json(j: &mut crate::json::Json, extras: &Extras) {
    write_object(j, &extras.0);
}

/// About how many bytes [`write_json`] writes for `extras` (exact for strings without
/// escapes, a generous guess for numbers): what the writer reserves up front, so that a
/// document holding megabytes of extras is not copied at every doubling of its buffer.
pub(crate) fn size_hint(extras: &Extras) -> usize {
    entries_hint(&extras.0)
}

fn entries_hint(entries: &[(String, Value)]) -> usize {
    entries.iter().fold(2, |n, (k, v)| {
        n.saturating_add(k.len())
            .saturating_add(4)
            .saturating_add(value_hint(v))
    })
}

fn value_hint(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(_) => 5,
        Value::Int(_) => 20,
        Value::Float(_) => 24,
        Value::Str(s) => s.len().saturating_add(2),
        Value::List(l) => l
            .iter()
            .fold(2, |n, v| n.saturating_add(1).saturating_add(value_hint(v))),
        Value::Object(o) => entries_hint(o),
    }
}

fn write_object(j: &mut crate::json::Json, entries: &[(String, Value)]) {
    // serde_json's map sorts its keys, and a later insertion of a key replaces the value.
    let mut order: alloc::vec::Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| entries.get(i).map(|(k, _)| k.as_str());
        key(a).cmp(&key(b)).then(a.cmp(&b))
    });
    j.raw(b"{");
    let mut keys = order.iter().filter_map(|&i| entries.get(i)).peekable();
    while let Some((k, v)) = keys.next() {
        if keys.peek().is_some_and(|(next, _)| next == k) {
            continue; // the last of equal keys wins
        }
        j.sep();
        j.str(k);
        j.raw(b":");
        write_value(j, v);
    }
    j.raw(b"}");
}

fn write_value(j: &mut crate::json::Json, v: &Value) {
    match v {
        Value::Null => j.raw(b"null"),
        Value::Bool(true) => j.raw(b"true"),
        Value::Bool(false) => j.raw(b"false"),
        Value::Int(i) => j.int(*i),
        Value::Float(f) => j.f32_short(*f),
        Value::Str(s) => j.str(s),
        Value::List(l) => {
            j.raw(b"[");
            for v in l {
                j.sep();
                write_value(j, v);
            }
            j.raw(b"]");
        }
        Value::Object(o) => write_object(j, o),
    }
}

/// The extras of a JSON object (anything else gives none). Numbers with a fraction or
/// exponent become [`Value::Float`], others [`Value::Int`] (or `Float` when they do not fit
/// an `i64`).
pub fn from_json(json: &serde_json::Value) -> Extras {
    match json {
        serde_json::Value::Object(map) => Extras(
            map.iter()
                .map(|(k, v)| (k.clone(), value_from_json(v)))
                .collect(),
        ),
        _ => Extras::default(),
    }
}

fn value_to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => (*b).into(),
        Value::Int(i) => (*i).into(),
        // Non-finite floats have no JSON form: null (glTF output never holds NaN).
        Value::Float(f) => Number::from_f64(f64::from(*f))
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::Str(s) => s.clone().into(),
        Value::List(l) => serde_json::Value::Array(l.iter().map(value_to_json).collect()),
        Value::Object(o) => serde_json::Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), value_to_json(v)))
                .collect(),
        ),
    }
}

fn value_from_json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) if !n.is_f64() => Value::Int(i),
            // f64 → f32: the nearest f32, which is the written one for values this crate wrote.
            _ => Value::Float(narrow(n.as_f64().unwrap_or(0.0))),
        },
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(a) => Value::List(a.iter().map(value_from_json).collect()),
        serde_json::Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), value_from_json(v)))
                .collect(),
        ),
    }
}

/// `f` rounded to the nearest `f32` (saturating to ±infinity beyond its range).
#[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
fn narrow(f: f64) -> f32 {
    // `as` from f64 to f32 rounds to nearest, the conversion wanted here; it cannot panic.
    f as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// The reserve is at least what is written for extras of strings, lists and
    /// objects (numbers are guessed high), and within a small factor of it.
    #[test]
    fn size_hint_covers_what_is_written() {
        let mut e = Extras::default();
        e.set("md3.blob", Value::Str("QUJD".repeat(5000)));
        e.set(
            "md3.list",
            Value::List(vec![
                Value::Int(-1234567890123),
                Value::Float(-1.5e-7),
                Value::Null,
                Value::Bool(false),
                Value::Object(vec![("k".into(), Value::Str("v".into()))]),
            ]),
        );
        e.set("z", Value::List(Vec::new()));
        let mut j = crate::json::Json::new();
        write_json(&mut j, &e);
        let hint = size_hint(&e);
        assert!(hint >= j.out.len(), "{hint} < {}", j.out.len());
        assert!(hint < j.out.len() + 200, "{hint} for {}", j.out.len());
    }

    /// Every float the exporter writes into extras reads back as the same `f32` through
    /// serde_json (which parses to `f64`): a stride over all bit patterns, with the
    /// neighbours of each (both signs, subnormals, the largest finite values).
    #[test]
    fn short_floats_read_back_exactly() {
        let mut checked = 0u32;
        let mut bits = 0u32;
        loop {
            for b in [
                bits,
                bits.wrapping_add(1),
                bits.wrapping_sub(1),
                bits ^ 0x8000_0000,
            ] {
                let f = f32::from_bits(b);
                if !f.is_finite() {
                    continue;
                }
                let mut j = crate::json::Json::new();
                j.f32_short(f);
                let text = core::str::from_utf8(&j.out).unwrap();
                let e = from_json(
                    &serde_json::json!({ "x": serde_json::from_str::<serde_json::Value>(text).unwrap() }),
                );
                let back = match e.get("x") {
                    Some(Value::Float(x)) => *x,
                    other => panic!("{text}: {other:?}"),
                };
                assert_eq!(back.to_bits(), f.to_bits(), "{f:e} written as {text}");
                checked += 1;
            }
            match bits.checked_add(65_521) {
                Some(b) => bits = b,
                None => break,
            }
        }
        assert!(checked > 200_000, "{checked}");
    }
}
