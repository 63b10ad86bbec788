//! What a person at a shell expects of a git subcommand: completions that complete (in bash
//! through `git-dibs` and through git's own `git dibs <Tab>`), and colour only on a terminal,
//! never with `NO_COLOR`.

mod common;

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};

use common::*;

/// What bash completes for `words` (the last one is the word under the cursor), after sourcing
/// git's bash completion (when `with_git`) and ours.
fn complete(script: &Path, with_git: Option<&Path>, words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let call = if with_git.is_some() {
        r#"__git_wrap__git_main git "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}""#
    } else {
        r#"_git__dibs git-dibs "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}""#
    };
    let body = format!(
        "{}source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"\nCOMP_POINT=${{#COMP_LINE}}\nCOMPREPLY=()\n{call}\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        with_git.map_or(String::new(), |g| format!("source '{}'\n", g.display())),
        script.display(),
        quoted.join(" "),
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(body)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .replace('\n', " ")
}

#[test]
fn bash_completes_subcommands_and_their_options_as_git_dibs_and_as_git_dibs() {
    let repo = TestRepo::new();
    let out = dibs(&repo.root, &["completions", "bash"]);
    assert!(out.status.success());
    let script = repo.tmp.path().join("git-dibs.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    assert_eq!(complete(&script, None, &["git-dibs", "st"]), "status");
    // A subcommand's own options (clap_complete's script misses them without our fix).
    assert_eq!(
        complete(&script, None, &["git-dibs", "audit", "--ver"]),
        "--verdict"
    );
    assert_eq!(
        complete(&script, None, &["git-dibs", "lane", "land", "--sq"]),
        "--squash"
    );
    // Through git's own completion, as a person types it.
    let git_completion = Path::new("/usr/share/bash-completion/completions/git");
    if git_completion.is_file() {
        let g = Some(git_completion);
        assert_eq!(complete(&script, g, &["git", "dibs", "cl"]), "claim");
        assert_eq!(
            complete(&script, g, &["git", "dibs", "lane", "l"]),
            "list land"
        );
        assert_eq!(
            complete(&script, g, &["git", "-C", ".", "dibs", "status", "--j"]),
            "--json"
        );
    } else {
        eprintln!("skipped `git dibs <Tab>`: no git bash completion at {git_completion:?}");
    }
}

/// Run the binary with stdout and stderr on a new pseudo-terminal; what it wrote there.
fn on_a_terminal(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two valid descriptors into the integers it is given, and the null
    // name, termios and window size pointers are allowed.
    #[allow(unsafe_code)]
    let rc = unsafe {
        libc::openpty(
            &raw mut master,
            &raw mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both descriptors were just opened by openpty and nothing else owns them.
    #[allow(unsafe_code)]
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env("TERM", "xterm-256color")
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("git-dibs runs");
    drop(cmd);
    let mut text = Vec::new();
    let mut reader = std::fs::File::from(master);
    // Reading the master ends with EIO once the child closed the terminal.
    #[allow(
        clippy::verbose_file_reads,
        reason = "a terminal's master side, which fs::read cannot open"
    )]
    let _ = reader.read_to_end(&mut text);
    child.wait().unwrap();
    String::from_utf8_lossy(&text).into_owned()
}

#[test]
fn help_has_colour_on_a_terminal_only_and_never_with_no_color() {
    let repo = TestRepo::new();
    let tty = on_a_terminal(&repo.root, &["-h"], &[]);
    assert!(tty.contains("Usage"), "{tty}");
    assert!(tty.contains("\x1b["), "colour on a terminal: {tty:?}");
    let no_color = on_a_terminal(&repo.root, &["-h"], &[("NO_COLOR", "1")]);
    assert!(no_color.contains("Usage"), "{no_color}");
    assert!(!no_color.contains("\x1b["), "NO_COLOR: {no_color:?}");
    let piped = dibs(&repo.root, &["-h"]);
    assert!(!String::from_utf8_lossy(&piped.stdout).contains('\x1b'));
    // The commands' own output has no colour, even on a terminal.
    for args in [&["status"][..], &["doctor"], &["bogus"], &["lane", "list"]] {
        let tty = on_a_terminal(&repo.root, args, &[("GIT_CONFIG_GLOBAL", "/dev/null")]);
        assert!(!tty.is_empty(), "{args:?}");
        assert!(!tty.contains('\x1b'), "{args:?}: {tty:?}");
    }
}

#[test]
fn the_readme_install_makes_git_dibs_help_open_the_manual_page() {
    let repo = TestRepo::new();
    // As `cargo install` leaves it: `<prefix>/bin/git-dibs`, that folder on PATH.
    let (prefix, path) = installed_prefix(&repo, "cargo-home");
    // The README's own step: `git dibs man --install`.
    let out = git_command(&repo.root)
        .args(["dibs", "man", "--install"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", out_text(&out));
    assert!(prefix.join("share/man/man1/git-dibs.1").is_file());
    if Command::new("man").arg("-w").arg("git").output().is_err() {
        eprintln!("skipped `git dibs --help`: no man here");
        return;
    }
    let out = git_command(&repo.root)
        .args(["dibs", "--help"])
        .env("PATH", &path)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "80")
        .env_remove("MANPATH")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", out_text(&out));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains("NAME") && page.contains("git-dibs"), "{page}");
    assert!(
        page.contains("lane"),
        "the subcommands are on the page: {page}"
    );
}
