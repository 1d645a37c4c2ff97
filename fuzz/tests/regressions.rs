//! Replays every minimised crasher under `fuzz/regressions/<target>/` through the same
//! function the fuzz target runs (`idmodel_fuzz::<target>::run`), from an ordinary
//! `cargo test`. A file that panics again fails the test and names itself.

use std::fs;
use std::panic;
use std::path::Path;

#[test]
fn every_regression_input_replays_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut replayed = 0usize;
    let mut failures = Vec::new();
    for &(name, run) in idmodel_fuzz::TARGETS {
        let dir = root.join(name);
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for path in files.into_iter().filter(|p| p.is_file()) {
            let data = fs::read(&path).unwrap();
            if panic::catch_unwind(|| run(&data)).is_err() {
                failures.push(path.display().to_string());
            }
            replayed += 1;
        }
    }
    // A folder named after no target is a typo that would silently skip its files.
    if let Ok(entries) = fs::read_dir(&root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                assert!(
                    idmodel_fuzz::TARGETS.iter().any(|(t, _)| *t == name),
                    "regressions/{name}/ names no fuzz target"
                );
            }
        }
    }
    eprintln!("replayed {replayed} regression inputs");
    assert!(
        failures.is_empty(),
        "regression inputs that panic: {failures:#?}"
    );
}

#[test]
fn the_target_table_names_every_fuzz_target_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz_targets");
    let mut files: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_string_lossy()
                .strip_suffix(".rs")
                .map(str::to_owned)
        })
        .collect();
    files.sort();
    let mut names: Vec<String> = idmodel_fuzz::TARGETS
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .collect();
    names.sort();
    assert_eq!(files, names);
}

/// Every target's body runs on the project's sample models (valid files of every format)
/// and on each of them cut short, so a body that only ever sees refusals would show here.
#[test]
fn every_target_runs_on_the_samples_and_their_prefixes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    let mut inputs = 0usize;
    for entry in fs::read_dir(&dir).unwrap().flatten() {
        let data = fs::read(entry.path()).unwrap();
        if data.is_empty() || entry.path().extension().is_some_and(|e| e == "png") {
            continue;
        }
        for &(name, run) in idmodel_fuzz::TARGETS {
            for cut in [data.len(), data.len() / 2, 16, 0] {
                let input = &data[..cut.min(data.len())];
                assert!(
                    panic::catch_unwind(|| run(input)).is_ok(),
                    "{name} panics on {} cut to {cut} bytes",
                    entry.path().display()
                );
                inputs += 1;
            }
        }
    }
    assert!(
        inputs >= 6 * 4 * idmodel_fuzz::TARGETS.len(),
        "{inputs} inputs"
    );
}
