//! `idmodel check`: walks the files, folders and archives named, prints each model's
//! findings (text, or JSON Lines with `--json`) and a summary, and sets the exit status
//! a CI job gates on (`--fail-on`). The findings are `idmodel_convert::check`'s.

use std::path::{Path, PathBuf};

use idmodel_convert::check::{self, CheckError, Summary, check_bytes, text_report};
use idmodel_convert::{Engine, MODEL_EXTENSIONS as CHECK_EXTENSIONS, Severity};

use crate::usage::{line, usage};
use crate::{Exit, error_line, out_line};

/// Archive extensions `check FOLDER` names as not checked yet.
const ARCHIVE_EXTENSIONS: [&str; 3] = ["pk3", "pk4", "pak"];

/// What `check` was asked.
#[derive(Debug, Clone)]
pub struct Request {
    /// Files and folders.
    pub paths: Vec<PathBuf>,
    /// `--engine`: only this engine.
    pub engine: Option<Engine>,
    /// `--fail-on`: the mildest severity that fails the check.
    pub fail_on: Severity,
    /// `--json`: JSON Lines on stdout, the summary on stderr.
    pub json: bool,
    /// `--allow CODE`: findings of these codes are printed but never fail the check.
    pub allow: Vec<String>,
}

fn is_archive(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ARCHIVE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Runs `check`.
pub fn run(request: &Request) -> Exit {
    let mut summary = Summary::default();
    let mut walked = false;
    for path in &request.paths {
        if path.is_dir() {
            walked = true;
            let mut files = Vec::new();
            let mut errors = Vec::new();
            let exts: Vec<&str> = CHECK_EXTENSIONS
                .iter()
                .chain(&ARCHIVE_EXTENSIONS)
                .copied()
                .collect();
            idmodel_convert::batch::walk_in(path, &exts, &mut files, &mut errors, None);
            for e in errors {
                error_line(e);
                summary.unreadable();
            }
            for f in &files {
                if is_archive(f) {
                    error_line(line(
                        f,
                        "not checked: archives (.pk3, .pk4, .pak) are not supported yet",
                    ));
                    summary.archives = summary.archives.saturating_add(1);
                } else if let Err(exit) = check_one(f, true, request, &mut summary) {
                    return exit;
                }
            }
        } else if let Some(found) = idmodel_convert::archives::check_paths(path) {
            // Every model inside an archive, as in a folder.
            walked = true;
            match found {
                Ok((models, refused)) if models.is_empty() => {
                    for r in refused {
                        error_line(r);
                    }
                    error_line(line(path, "no model files in this archive"));
                    summary.unreadable();
                }
                Ok((models, refused)) => {
                    for r in refused {
                        error_line(r);
                    }
                    for m in &models {
                        if let Err(exit) = check_one(m, true, request, &mut summary) {
                            return exit;
                        }
                    }
                }
                Err(e) => {
                    error_line(e);
                    summary.unreadable();
                }
            }
        } else {
            let path = match idmodel_convert::archives::prepare(path) {
                Ok(p) => p.unwrap_or_else(|| path.clone()),
                Err(e) => {
                    error_line(e);
                    summary.unreadable();
                    continue;
                }
            };
            if let Err(exit) = check_one(&path, false, request, &mut summary) {
                return exit;
            }
        }
    }
    let found = [summary.unreadable, summary.skipped, summary.archives]
        .into_iter()
        .fold(summary.files, usize::saturating_add);
    if found == 0 {
        // A gate pointed at the wrong folder must not pass.
        error_line(format_args!(
            "nothing was checked: no model files (.{}) in {}",
            CHECK_EXTENSIONS.join(", ."),
            request
                .paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Exit::Failed;
    }
    if walked || request.paths.len() > 1 {
        if request.json {
            error_line(summary.line());
        } else {
            out_line(summary.line());
        }
    }
    if summary.failed {
        Exit::Failed
    } else {
        Exit::Ok
    }
}

/// Checks one file and prints what it finds; `Err` ends the run (a usage error).
fn check_one(
    path: &Path,
    in_folder: bool,
    request: &Request,
    summary: &mut Summary,
) -> Result<(), Exit> {
    let unreadable = |summary: &mut Summary, message: String| {
        error_line(&message);
        if request.json {
            out_line(check::unreadable_json(path, &message));
        }
        summary.files = summary.files.saturating_add(1);
        summary.unreadable();
    };
    let bytes = match idmodel_convert::read_model(path) {
        Ok(b) => b,
        Err(f) => {
            unreadable(summary, line(path, f));
            return Ok(());
        }
    };
    match check_bytes(path, &bytes, request.engine) {
        Ok(checked) => {
            summary.files = summary.files.saturating_add(1);
            summary.count(&checked.findings, request.fail_on, &request.allow);
            if request.json {
                for m in &checked.findings {
                    out_line(m.json(path));
                }
            } else if !(in_folder && checked.findings.is_empty()) {
                out_line(text_report(path, &checked));
            }
            Ok(())
        }
        Err(CheckError::Usage(_)) if in_folder => {
            summary.skipped = summary.skipped.saturating_add(1);
            Ok(())
        }
        Err(CheckError::Usage(e)) => Err(usage(line(path, e))),
        Err(CheckError::Refused(e)) => {
            unreadable(summary, e);
            Ok(())
        }
    }
}
