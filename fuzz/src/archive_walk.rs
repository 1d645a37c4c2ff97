//! The archive readers of `idmodel-assets` on any bytes, shared by the `pak` and `pk3`
//! targets: open under each profile with a 1 MiB entry limit, list, read every entry and
//! every refused name. No panic; nothing read is larger than the limit or than what the
//! directory declares; every error is one line naming the archive.

use idmodel_assets::{Archive, Limits, Profile};

const LIMIT: u64 = 1 << 20;

pub fn walk(data: &[u8], profiles: &[Profile]) {
    let one_line = |e: &str| {
        assert!(
            e.starts_with("fuzz:"),
            "error does not name the archive: {e}"
        );
        assert!(!e.contains(['\n', '\r']), "error is not one line: {e:?}");
    };
    for &p in profiles {
        let limits = Limits {
            max_entry_size: LIMIT,
        };
        let archive = match Archive::from_bytes("fuzz", data.to_vec(), p, limits) {
            Ok(a) => a,
            Err(e) => {
                one_line(&e);
                continue;
            }
        };
        for e in archive.problems() {
            one_line(e);
        }
        let names: Vec<String> = archive.names().into_iter().map(str::to_owned).collect();
        for n in &names {
            match archive.read(n) {
                Ok(Some(bytes)) => assert!(bytes.len() as u64 <= LIMIT),
                // A name of the index may be a duplicate whose chosen entry is refused.
                Ok(None) => {}
                Err(e) => one_line(&e),
            }
        }
        for (dir, ext) in [("", ""), ("scripts", ".shader"), ("progs", ".mdl")] {
            for n in archive.list(dir, ext) {
                assert!(names.contains(&n), "listed {n:?} is not an entry");
            }
        }
    }
}
