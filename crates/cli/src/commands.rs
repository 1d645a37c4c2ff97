//! The subcommands: each asks `idmodel_convert` for its answer or its files, writes the
//! files through [`crate::output`], prints what there is to print, and gives the exit
//! status. No format, texture or conversion rule lives here.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use idmodel_convert::batch::{self, Batch};
use idmodel_convert::render::{Motion, RenderOptions};
use idmodel_convert::{Converted, Error, Options};
use rayon::prelude::*;

use crate::output::{self, Plan, Policy, Stop};
use crate::usage::{line, usage};
use crate::{Command, Exit, error_line, out_line};

/// Runs one subcommand.
pub fn run(command: Command) -> Exit {
    match command {
        Command::Info { file, json, game } => {
            let _ = game;
            info(&file, json)
        }
        Command::Check {
            paths,
            engine,
            fail_on,
            json,
            game,
            allow,
        } => {
            let _ = game;
            crate::check::run(&crate::check::Request {
                paths,
                engine: engine.map(|e| e.0),
                fail_on: fail_on.severity(),
                json,
                allow,
            })
        }
        Command::Convert(args) => {
            let (input, output, force) = (args.input.clone(), args.output.clone(), args.force);
            let say = Say {
                quiet: args.quiet,
                verbose: args.verbose,
            };
            let options = args.options();
            convert(&input, &output, &options, say, force)
        }
        Command::Completions { shell } => crate::usage::completions(shell),
        Command::Man { command } => crate::usage::man(command.as_deref()),
        Command::Render {
            file,
            output,
            frame,
            clip,
            skin,
            anims,
            size,
            background,
            force,
            no_textures,
            keep_normals,
            game,
            animate,
            turntable,
            max_output,
        } => {
            let sheet = idmodel_convert::render::is_sheet(&file);
            let size = size.unwrap_or(if sheet { (128, 128) } else { (512, 512) });
            let motion = if animate {
                Motion::Animate
            } else if let Some(n) = turntable {
                Motion::Turntable(n)
            } else {
                Motion::Still
            };
            let request = idmodel_convert::render::Request {
                render: RenderOptions {
                    width: size.0,
                    height: size.1,
                    background,
                    ..RenderOptions::default()
                },
                motion,
                max_output,
            };
            let options = Options {
                anims,
                frame,
                clip,
                skin,
                no_textures,
                keep_normals,
                game,
                ..Options::default()
            };
            let done = idmodel_convert::render::render_file(&file, &output, &options, &request);
            // `render` has no --quiet: its warnings are always shown.
            finish(done, force, false, |_| {})
        }
    }
}

/// Prints a library error (each of its lines) and gives its exit status.
fn report_error(e: &Error) -> Exit {
    match e {
        Error::Usage(m) => usage(m),
        Error::Failed(m) | Error::Refused(m) => {
            for l in m.lines() {
                error_line(l);
            }
            if matches!(e, Error::Failed(_)) {
                Exit::Failed
            } else {
                Exit::Usage
            }
        }
    }
}

fn info(path: &Path, json: bool) -> Exit {
    match idmodel_convert::info(path, json) {
        Ok((text, errors)) => {
            out_line(text);
            for e in errors {
                error_line(e);
            }
            Exit::Ok
        }
        Err(e) => {
            error_line(e);
            Exit::Failed
        }
    }
}

/// Writes the files of a conversion through one [`Plan`] (`force`: replace existing side
/// files and read-only outputs, never an input), after remembering what it read as
/// inputs of the run.
pub(crate) fn write(done: Converted, force: bool) -> Result<idmodel_convert::Report, Stop> {
    for p in &done.report.inputs {
        output::remember(p);
    }
    if let Some(folder) = &done.report.folder
        && !folder.is_dir()
    {
        std::fs::create_dir_all(folder)
            .map_err(|e| Stop::Failed(line(folder, format!("cannot create the folder: {e}"))))?;
    }
    let mut plan = Plan::new(Policy { force, named: true });
    plan.files(done.files);
    plan.commit()?;
    Ok(done.report)
}

/// The end of a command that writes one conversion's files: written, then its warnings
/// (stderr) and lines (stdout) unless `quiet`; `say` may print more.
fn finish(
    done: Result<Converted, Error>,
    force: bool,
    quiet: bool,
    say: impl FnOnce(&idmodel_convert::Report),
) -> Exit {
    let done = match done {
        Ok(d) => d,
        Err(e) => return report_error(&e),
    };
    match write(done, force) {
        Ok(report) => {
            if !quiet {
                for w in &report.warnings {
                    error_line(w);
                }
                for l in &report.lines {
                    out_line(l);
                }
                say(&report);
            }
            Exit::Ok
        }
        Err(stop) => stop.report(),
    }
}

/// How much `convert` prints: `--quiet` nothing on success, `--verbose` every warning of
/// a batch.
#[derive(Clone, Copy, Default)]
struct Say {
    quiet: bool,
    verbose: bool,
}

/// `convert`: one model (or a glTF on the way back), or a batch of a folder or archive.
fn convert(input: &Path, output: &Path, options: &Options, say: Say, force: bool) -> Exit {
    match batch::batch(input, output, options) {
        Err(e) => report_error(&e),
        Ok(Some(b)) => convert_batch(&b, options, say, force),
        Ok(None) => finish(
            idmodel_convert::convert(input, output, options),
            force,
            say.quiet,
            |_| {},
        ),
    }
}

/// Converts every item of `b` into its output folder, in parallel, with a progress bar
/// on a terminal. All outputs are checked before anything is converted.
fn convert_batch(b: &Batch, options: &Options, say: Say, force: bool) -> Exit {
    let quiet = say.quiet;
    for w in &b.warnings {
        error_line(w);
    }
    let outputs: Vec<PathBuf> = b.items.iter().map(|i| i.output.clone()).collect();
    if let Err(refused) = output::check_batch(&b.root, &outputs, b.kind, force) {
        for r in &refused {
            error_line(r);
        }
        error_line(format_args!(
            "nothing was converted: {} output files refused (--force replaces existing files, never inputs)",
            refused.len()
        ));
        return Exit::Usage;
    }
    let bar = if std::io::stderr().is_terminal() && !quiet {
        let bar = indicatif::ProgressBar::new(u64::try_from(b.items.len()).unwrap_or(u64::MAX));
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:20} {pos}/{len} {elapsed} {wide_msg}")
        {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let panicked = AtomicBool::new(false);
    // Warnings are printed in the folder's order whatever order the threads finish in, so
    // two runs print the same: each item's wait until those before it are printed.
    let warnings = Mutex::new(InOrder {
        verbose: say.verbose,
        ..InOrder::default()
    });
    // Largest inputs first, each thread taking the next file when it is free (greedy
    // list scheduling: `par_bridge` hands the files out in this order). A batch takes
    // as long as its busiest thread; in the folder's order, or with `par_iter`'s halves,
    // the big models can land on one thread one after the other. The results go back to
    // the folder's order below.
    let mut order: Vec<(u64, usize)> = b
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| (std::fs::metadata(&item.input).map_or(0, |m| m.len()), i))
        .collect();
    order.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut indexed: Vec<(usize, Result<(), String>)> = order
        .into_iter()
        .filter_map(|(_, i)| Some((i, b.items.get(i)?)))
        .par_bridge()
        .map(|(i, item)| {
            bar.set_message(b.label(item));
            let result = std::panic::catch_unwind(|| {
                let done = b.convert(item, options).map_err(String::from);
                let report = done.and_then(|d| write_derived(d, force).map_err(String::from));
                let said = match (&report, quiet) {
                    (Ok(r), false) => r.warnings.clone(),
                    _ => Vec::new(),
                };
                let mut w = warnings.lock().unwrap_or_else(PoisonError::into_inner);
                w.add(i, said, |line| bar.suspend(|| error_line(line)));
                report.map(drop)
            })
            .unwrap_or_else(|_| {
                panicked.store(true, Ordering::Relaxed);
                let mut w = warnings.lock().unwrap_or_else(PoisonError::into_inner);
                w.add(i, Vec::new(), |line| bar.suspend(|| error_line(line)));
                Err(line(
                    &item.input,
                    "internal error while converting (see above)",
                ))
            });
            bar.inc(1);
            (i, result)
        })
        .collect();
    indexed.sort_by_key(|(i, _)| *i);
    bar.finish_and_clear();
    let held = warnings
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    for line in held.summary() {
        error_line(line);
    }
    let mut failures = b.failures.clone();
    let done = indexed.iter().filter(|(_, r)| r.is_ok()).count();
    failures.extend(indexed.into_iter().filter_map(|(_, r)| r.err()));
    if !quiet {
        out_line(format_args!(
            "converted {done} of {} models from {} to {} ({}), {}, failed {}",
            b.items.len(),
            b.root.display(),
            b.output.display(),
            b.kind.ext(),
            b.skipped,
            failures.len()
        ));
    }
    if failures.is_empty() && !panicked.load(Ordering::Relaxed) {
        return Exit::Ok;
    }
    error_line(format_args!("{} failed:", failures.len()));
    for f in failures {
        error_line(f);
    }
    Exit::Failed
}

/// Lines that come in any order, each batch item's under its index, printed in the
/// items' order: an item's lines wait until every item before it has given its own.
/// Unless `verbose`, only the first [`InOrder::SHOWN`] lines of a kind are printed (a
/// game folder can miss the same texture eighty times) and [`InOrder::summary`] counts
/// the rest.
#[derive(Default)]
struct InOrder {
    next: usize,
    waiting: std::collections::BTreeMap<usize, Vec<String>>,
    verbose: bool,
    /// Each kind of line (see [`kind`]) and how many came.
    kinds: std::collections::BTreeMap<String, usize>,
}

impl InOrder {
    /// Lines of one kind printed before the rest are only counted.
    const SHOWN: usize = 2;

    /// Item `i`'s lines (none is fine: it still lets the items after it go); prints with
    /// `print` every line now due.
    fn add(&mut self, i: usize, lines: Vec<String>, mut print: impl FnMut(&str)) {
        self.waiting.insert(i, lines);
        while let Some(lines) = self.waiting.remove(&self.next) {
            for l in &lines {
                let seen = self.kinds.entry(kind(l).to_owned()).or_insert(0);
                *seen = seen.saturating_add(1);
                if self.verbose || *seen <= Self::SHOWN {
                    print(l);
                }
            }
            self.next = self.next.saturating_add(1);
        }
    }

    /// A line per kind of which more came than were printed.
    fn summary(&self) -> Vec<String> {
        self.kinds
            .iter()
            .filter(|(_, n)| !self.verbose && **n > Self::SHOWN)
            .map(|(k, n)| {
                format!(
                    "{} more \"{k}\" lines like the above (--verbose prints them all)",
                    n.saturating_sub(Self::SHOWN)
                )
            })
            .collect()
    }
}

/// The kind of a warning line, `path: what: detail …` → `what` up to its own detail:
/// `warning: texture not found`, `quake2: hazard`.
fn kind(line: &str) -> &str {
    // Past the file the line names (a path holds no ": ").
    let after = line.split_once(": ").map_or(line, |(_, rest)| rest);
    // `warning: texture not found: …` → up to the second `: `.
    let mut cut = after.match_indices(": ").map(|(i, _)| i);
    match (cut.next(), cut.next()) {
        (Some(_), Some(second)) => after.get(..second).unwrap_or(after),
        (Some(first), None) => after.get(..first).unwrap_or(after),
        _ => after,
    }
}

/// [`write`] for a batch item: its output's name was derived, so an existing file is
/// replaced only with `--force`.
fn write_derived(done: Converted, force: bool) -> Result<idmodel_convert::Report, Stop> {
    for p in &done.report.inputs {
        output::remember(p);
    }
    let mut plan = Plan::new(Policy {
        force,
        named: false,
    });
    plan.files(done.files);
    plan.commit()?;
    Ok(done.report)
}

#[cfg(test)]
mod tests {
    use super::{InOrder, kind};

    #[test]
    fn repeated_kinds_are_counted_after_the_first_two() {
        let mut printed = Vec::new();
        let mut w = InOrder::default();
        let missing =
            |n: u32| format!("/g/m{n}.md3: warning: texture not found: shader s{n}; tried …");
        for i in 0..5 {
            w.add(i as usize, vec![missing(i)], |l| printed.push(l.to_owned()));
        }
        w.add(
            5,
            vec!["/g/x.md2: quake2: hazard: no GL commands".into()],
            |l| printed.push(l.to_owned()),
        );
        assert_eq!(printed.len(), 3, "{printed:?}");
        assert_eq!(
            w.summary(),
            [
                "3 more \"warning: texture not found\" lines like the above (--verbose prints them all)"
            ]
        );
        assert_eq!(
            kind("/a/b.md3: warning: texture not found: x: y"),
            "warning: texture not found"
        );
        assert_eq!(
            kind("/a/b.md2: quake2: hazard: no GL commands"),
            "quake2: hazard"
        );
        assert_eq!(kind("no path here"), "no path here");
    }

    #[test]
    fn batch_lines_come_out_in_the_items_order() {
        let mut printed = Vec::new();
        let mut w = InOrder {
            verbose: true,
            ..InOrder::default()
        };
        w.add(2, vec!["c".into()], |l| printed.push(l.to_owned()));
        w.add(1, vec![], |l| printed.push(l.to_owned()));
        assert!(printed.is_empty(), "item 0 has not finished");
        w.add(0, vec!["a1".into(), "a2".into()], |l| {
            printed.push(l.to_owned())
        });
        assert_eq!(printed, ["a1", "a2", "c"]);
        w.add(3, vec!["d".into()], |l| printed.push(l.to_owned()));
        assert_eq!(printed, ["a1", "a2", "c", "d"]);
    }
}
