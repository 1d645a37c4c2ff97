//! Usage errors in two lines: `idmodel: <what is wrong>` and the subcommand's usage
//! with where to read more, exit status 2. Also the `completions` and `man` commands.

use std::ffi::OsString;
use std::io::Write as _;

use clap::CommandFactory as _;
use clap::error::ErrorKind;

use crate::{Cli, Exit, error_line};

/// The subcommand named in `args` (the process's arguments without the program name),
/// if any: the first argument that is one.
fn subcommand_of(args: impl IntoIterator<Item = OsString>) -> Option<String> {
    let cli = Cli::command();
    args.into_iter()
        .filter_map(|a| a.into_string().ok())
        .find(|a| cli.find_subcommand(a).is_some())
}

/// The hint line for `sub` (or the whole command):
/// `usage: idmodel check [OPTIONS] <PATHS>...  (more: idmodel check --help)`.
pub fn hint(sub: Option<&str>) -> String {
    let mut cli = Cli::command();
    cli.build();
    let (usage, name) = match sub.and_then(|s| cli.find_subcommand_mut(s)) {
        Some(c) => (
            c.render_usage().to_string(),
            format!("idmodel {}", c.get_name()),
        ),
        None => (cli.render_usage().to_string(), "idmodel".to_owned()),
    };
    let usage = usage.trim();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(usage);
    // A command with several usages (`idmodel [COMMAND]` and the like) keeps the first.
    let usage = usage.lines().next().unwrap_or_default().trim();
    format!("usage: {usage}  (more: {name} --help)")
}

/// Prints a usage error for the subcommand this process was run with.
pub fn print(message: &str) {
    error_line(message.replace(['\n', '\r'], " "));
    let sub = subcommand_of(std::env::args_os().skip(1));
    let _ = writeln!(std::io::stderr().lock(), "{}", hint(sub.as_deref()));
}

/// clap's multi-line error as one line: the error and its tips, without the usage and
/// the "For more information" line that [`hint`] replaces.
pub fn one_line(rendered: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for l in rendered.lines() {
        let l = l.trim();
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if l.is_empty() {
            continue;
        }
        let l = l.strip_prefix("error: ").unwrap_or(l);
        match l.strip_prefix("tip: ") {
            Some(tip) => parts.push(format!("({tip})")),
            None => parts.push(l.to_owned()),
        }
    }
    parts.join(" ").replace(":  ", ": ")
}

/// What to do with a clap error: help and version print and exit 0; a usage error
/// prints as [`print`] does and exits 2.
pub fn clap_error(e: &clap::Error) -> Exit {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            Exit::Ok
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            let sub = subcommand_of(std::env::args_os().skip(1));
            let names: Vec<String> = Cli::command()
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .map(|c| c.get_name().to_owned())
                .collect();
            let what = match &sub {
                Some(s) => format!("'{s}' needs a subcommand"),
                None => format!("a command is needed: one of {}", names.join(", ")),
            };
            error_line(what);
            let _ = writeln!(std::io::stderr().lock(), "{}", hint(sub.as_deref()));
            Exit::Usage
        }
        _ => {
            print(&one_line(&e.render().to_string()));
            Exit::Usage
        }
    }
}

/// `idmodel completions <SHELL>`: the completion script on stdout.
pub fn completions(shell: clap_complete::Shell) -> Exit {
    let mut cli = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cli, "idmodel", &mut out);
    write_out(&out)
}

/// `idmodel man [COMMAND]`: the roff man page of idmodel (or of one subcommand, named
/// `idmodel-<command>`) on stdout.
pub fn man(sub: Option<&str>) -> Exit {
    let mut cli = Cli::command();
    cli.build();
    let page = match sub {
        None => cli,
        Some(s) => match cli.find_subcommand(s) {
            // Built, a subcommand is displayed as `idmodel-<command>`.
            Some(c) => c.clone(),
            None => {
                print(&format!("no command '{s}' to show a man page of"));
                return Exit::Usage;
            }
        },
    };
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
        error_line(format_args!("cannot write the man page: {e}"));
        return Exit::Failed;
    }
    write_out(&out)
}

fn write_out(bytes: &[u8]) -> Exit {
    // A closed pipe (`idmodel man | head`) is not an error.
    let _ = std::io::stdout().lock().write_all(bytes);
    Exit::Ok
}

/// Prints a usage error (one line, then the subcommand's usage) and returns exit
/// status 2.
pub(crate) fn usage(message: impl std::fmt::Display) -> Exit {
    print(&message.to_string());
    Exit::Usage
}

/// A failure that names its file: the line printed for it.
pub(crate) fn line(path: &std::path::Path, failure: impl std::fmt::Display) -> String {
    format!("{}: {failure}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[test]
    fn clap_errors_become_one_line() {
        let e =
            Cli::try_parse_from(["idmodel", "check", "x.mdl", "--engine", "quake4"]).unwrap_err();
        let l = one_line(&e.render().to_string());
        assert!(!l.contains('\n'), "{l}");
        assert!(l.starts_with("invalid value 'quake4'"), "{l}");
        assert!(l.contains("glquake"), "the possible values stay: {l}");
        let e = Cli::try_parse_from(["idmodel", "check"]).unwrap_err();
        let l = one_line(&e.render().to_string());
        assert!(l.contains("<PATHS>"), "{l}");
    }

    #[test]
    fn hints_name_the_subcommand() {
        let h = hint(Some("check"));
        assert!(h.starts_with("usage: idmodel check "), "{h}");
        assert!(h.ends_with("(more: idmodel check --help)"), "{h}");
        assert!(hint(None).starts_with("usage: idmodel "), "{}", hint(None));
        assert_eq!(
            subcommand_of(["--x", "convert", "check"].map(OsString::from)),
            Some("convert".to_owned())
        );
        assert_eq!(subcommand_of([OsString::from("nope")]), None);
    }
}
