//! The byte patch that makes a rewrite byte-identical: [`make_patch`] keeps the bytes of
//! the original the writer does not make, [`apply_patch`] puts them back into the output
//! it was made for.

use alloc::string::String;
use alloc::vec::Vec;

use super::base64::{base64_decode, base64_encode};
use super::digest::{digest_hex, guard_matches};
use crate::Value;

/// Equal bytes shorter than this between two differing runs are folded into one run.
const RUN_GAP: usize = 8;

/// The patch that turns `written` (what the writer makes of the model the extras
/// describe) into `original`, or `None` when they are equal: an object
/// `{"digest": digest of written, "len": original length, "runs": [[offset, base64], …]}`
/// (files written by earlier versions have `"hash"`, FNV-1a of written, instead).
/// It holds only the bytes the owned models cannot say (padding after a name's NUL, GL
/// commands another tool built, a header offset of 0 for absent GL commands, …), so it
/// stays small; it is applied only to a writer output with the same hash, that is only
/// when nothing was edited.
pub fn make_patch(written: &[u8], original: &[u8]) -> Option<Value> {
    if written == original {
        return None;
    }
    let mut runs: Vec<Value> = Vec::new();
    let mut i = 0usize;
    let n = original.len();
    while i < n {
        if written.get(i) == original.get(i) {
            i = i.saturating_add(1);
            continue;
        }
        let start = i;
        let mut end = i;
        let mut same = 0usize;
        while i < n {
            if written.get(i) == original.get(i) {
                same = same.saturating_add(1);
                if same >= RUN_GAP {
                    break;
                }
            } else {
                same = 0;
                end = i.saturating_add(1);
            }
            i = i.saturating_add(1);
        }
        let bytes = original.get(start..end).unwrap_or(&[]);
        runs.push(Value::List(alloc::vec![
            Value::Int(i64::try_from(start).unwrap_or(i64::MAX)),
            Value::Str(base64_encode(bytes)),
        ]));
    }
    Some(Value::Object(alloc::vec![
        (String::from("digest"), Value::Str(digest_hex(written))),
        (
            String::from("len"),
            Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
        ),
        (String::from("runs"), Value::List(runs)),
    ]))
}

/// `written` with `patch` applied when the patch was made for exactly these bytes (same
/// hash) and is well formed; else `written` unchanged. The result is at most `limit`
/// bytes and at most `written` plus the patch's own data long.
pub fn apply_patch(written: Vec<u8>, patch: Option<&Value>, limit: usize) -> Vec<u8> {
    let Some(Value::Object(fields)) = patch else {
        return written;
    };
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    // Which bytes the patch was made for: the digest (or, in older files, FNV-1a).
    let made_for = guard_matches(
        field("digest").and_then(Value::as_str),
        field("hash").and_then(Value::as_str),
        &written,
    );
    let len = field("len")
        .and_then(Value::as_int)
        .and_then(|l| usize::try_from(l).ok());
    let runs = field("runs").and_then(Value::as_list);
    let (Some(made_for), Some(len), Some(runs)) = (made_for, len, runs) else {
        return written;
    };
    // The output may grow only by the bytes the patch itself carries (so a small hostile
    // patch cannot ask for a large allocation), and never past `limit`.
    let carried: usize = runs
        .iter()
        .filter_map(|r| r.as_list()?.get(1)?.as_str().map(str::len))
        .sum();
    let most = written.len().saturating_add(carried).min(limit);
    if !made_for || len > most {
        return written;
    }
    let mut out = written.clone();
    out.resize(len, 0);
    for run in runs {
        let Some([at, data]) = run.as_list() else {
            return written;
        };
        let at = at.as_int().and_then(|a| usize::try_from(a).ok());
        let data = data.as_str().and_then(base64_decode);
        let (Some(at), Some(data)) = (at, data) else {
            return written;
        };
        let Some(dst) = at
            .checked_add(data.len())
            .and_then(|end| out.get_mut(at..end))
        else {
            return written;
        };
        dst.copy_from_slice(&data);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::back::digest::fnv_hex;

    /// A patch applies to the bytes it was made for, not to others; patches of older
    /// files, guarded by FNV-1a under `hash`, still apply.
    #[test]
    fn patches_apply_by_digest_and_by_the_older_fnv_hash() {
        let written: Vec<u8> = (0..100u8).collect();
        let mut original = written.clone();
        original[10] = 0xee;
        original[60] = 0xdd;
        let patch = make_patch(&written, &original).unwrap();
        assert_eq!(
            apply_patch(written.clone(), Some(&patch), 1 << 20),
            original
        );
        let mut other = written.clone();
        other[99] ^= 1;
        assert_eq!(apply_patch(other.clone(), Some(&patch), 1 << 20), other);
        // The same patch as files written before the digest hold it.
        let Value::Object(fields) = &patch else {
            panic!("{patch:?}")
        };
        let old: Vec<(String, Value)> = fields
            .iter()
            .map(|(k, v)| match k.as_str() {
                "digest" => ("hash".into(), Value::Str(fnv_hex(&written))),
                _ => (k.clone(), v.clone()),
            })
            .collect();
        assert!(old.iter().any(|(k, _)| k == "hash"));
        let old = Value::Object(old);
        assert_eq!(apply_patch(written.clone(), Some(&old), 1 << 20), original);
        assert_eq!(apply_patch(other.clone(), Some(&old), 1 << 20), other);
    }

    #[test]
    fn a_patch_applies_only_to_the_bytes_it_was_made_for() {
        let written = b"hello world, this is the written form".to_vec();
        let mut original = written.clone();
        original[3] = b'X';
        original[20] = b'Y';
        original.extend_from_slice(b"tail");
        let patch = make_patch(&written, &original).unwrap();
        assert_eq!(
            apply_patch(written.clone(), Some(&patch), 1 << 20),
            original
        );
        let mut edited = written.clone();
        edited[0] = b'J';
        assert_eq!(apply_patch(edited.clone(), Some(&patch), 1 << 20), edited);
        assert_eq!(apply_patch(written.clone(), Some(&patch), 4), written);
        assert!(make_patch(&written, &written).is_none());
        // Shorter originals truncate.
        let short = written[..10].to_vec();
        let patch = make_patch(&written, &short).unwrap();
        assert_eq!(apply_patch(written.clone(), Some(&patch), 1 << 20), short);
    }
}
