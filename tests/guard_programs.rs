//! Programs git runs from its config, its environment or its options are judged as the shell
//! text they are (`sh -c VALUE`), as `!` aliases are: given on the line (`GIT_EDITOR=`,
//! `EDITOR=`, `-c core.fsmonitor=`, `GIT_EXTERNAL_DIFF=`, `difftool -x`, `GIT_SSH_COMMAND=`,
//! `-c credential.helper='!…'`, `GIT_PAGER=`, `-c filter.X.clean=`, `ext::` URLs, `rebase
//! -x`, in every spelling of config for one command) or armed for every later git command by
//! `git config KEY VALUE` (red-team 3 findings 33 and 28). A script named by its path is read;
//! a program the guard cannot read is asked while work is at risk; `-c core.hooksPath=` on the
//! line is asked. Harmless values stay silent.

mod common;
mod guard_support;

use std::fs;
use std::os::unix::fs::PermissionsExt;

use common::snap::{answer, at_now};
use common::*;
use guard_support::*;

#[track_caller]
fn peer_files_refused(cwd: &std::path::Path, cmd: &str) {
    let reason = denied(cwd, cmd);
    assert!(
        reason.contains("[guard:peer-files]") && reason.contains("notes.txt"),
        "{cmd}: {reason}"
    );
}

#[test]
fn programs_given_on_the_line_are_judged_as_the_commands_they_run() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    for cmd in [
        "GIT_EDITOR='rm notes.txt' git commit --amend",
        "EDITOR='rm notes.txt' git commit",
        "VISUAL='rm notes.txt' git tag -a v1",
        "GIT_SEQUENCE_EDITOR='rm notes.txt' git rebase -i HEAD~1",
        "git -c core.editor='rm notes.txt' commit",
        "git -c 'core.editor=rm notes.txt' commit",
        "git -c CORE.EDITOR='rm notes.txt' commit",
        "git -c sequence.editor='rm notes.txt' rebase -i HEAD~1",
        "git -c core.fsmonitor='rm notes.txt #' status",
        "git -c core.FSMonitor='rm notes.txt #' status",
        "GIT_EXTERNAL_DIFF='rm notes.txt #' git diff",
        "git -c diff.external='rm notes.txt #' diff",
        "git difftool -x 'rm notes.txt'",
        "git difftool --extcmd='rm notes.txt'",
        "git difftool --ext 'rm notes.txt'",
        "GIT_SSH_COMMAND='rm notes.txt #' git fetch",
        "git -c core.sshCommand='rm notes.txt #' fetch",
        "git -c credential.helper='!rm notes.txt' fetch",
        "GIT_PAGER='rm notes.txt' git log",
        "PAGER='rm notes.txt' git log",
        "git -c core.pager='rm notes.txt' log",
        "git -c pager.log='rm notes.txt' log",
        "git -c filter.x.clean='rm notes.txt' add src/lib.rs",
        "git -c filter.x.smudge='rm notes.txt' checkout main -- README.md",
        "git -c protocol.ext.allow=always fetch 'ext::sh -c rm% notes.txt'",
        "git clone 'ext::sh -c rm% notes.txt' elsewhere",
        "git -c remote.origin.url='ext::sh -c rm% notes.txt' fetch",
        "git fetch --upload-pack='rm notes.txt; git-upload-pack' ../remote.git",
        // Other spellings of config and environment for one command.
        "env GIT_EDITOR='rm notes.txt' git commit",
        "export GIT_EDITOR='rm notes.txt'; git commit",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.editor GIT_CONFIG_VALUE_0='rm notes.txt' git commit",
        "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm notes.txt'\" git log",
        "E='rm notes.txt' git --config-env=core.editor=E commit",
        "E='rm notes.txt' git --config-env core.editor=E commit",
        "git -c core.editor=vim -c core.editor='rm notes.txt' commit",
        "bash -c \"GIT_EDITOR='rm notes.txt' git commit\"",
        // Keys red team 8b found missing: add -p's diff filter, archive's compressor, a
        // configured hook, a sendmail-like program.
        "git -c color.ui=always -c interactive.diffFilter='rm -f notes.txt; cat' add -p README.md",
        "git -c interactive.difffilter='rm notes.txt' checkout -p src/lib.rs",
        "git -c tar.tgz.command='rm notes.txt' archive -o x.tgz HEAD",
        "git -c hook.x.command='rm notes.txt' -c hook.x.event=post-checkout checkout -b nb",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=interactive.diffFilter GIT_CONFIG_VALUE_0='rm notes.txt' git add -p",
    ] {
        peer_files_refused(r, cmd);
    }
    // `rebase -x` and `bisect run` are read by the shell parser (git adds arguments: asked).
    for cmd in [
        "git rebase -x 'rm notes.txt' HEAD~1",
        "git rebase --exec='rm notes.txt' HEAD~1",
        "git bisect run rm notes.txt",
    ] {
        stopped(r, cmd);
    }
    // What is refused is what git really does: the fsmonitor hook runs at `git status`.
    let copy = f.base.join("copy");
    git(&f.base, &["clone", "-q", r.to_str().unwrap(), "copy"]);
    fs::write(copy.join("victim.txt"), "x").unwrap();
    git(
        &copy,
        &["-c", "core.fsmonitor=rm -f victim.txt #", "status", "-s"],
    );
    assert!(!copy.join("victim.txt").exists());
}

#[test]
fn a_script_a_program_value_names_is_read_and_a_binary_is_asked() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    let wipe = f.base.join("wipe.sh");
    fs::write(
        &wipe,
        format!("#!/bin/sh\nrm -f {}/notes.txt\n", r.display()),
    )
    .unwrap();
    let editor = f.base.join("editor.sh");
    fs::write(&editor, "#!/bin/sh\nexec vi \"$@\"\n").unwrap();
    let binary = f.base.join("tool");
    fs::copy("/bin/true", &binary).unwrap();
    for p in [&wipe, &editor, &binary] {
        fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (w, e, b) = (wipe.display(), editor.display(), binary.display());
    peer_files_refused(r, &format!("git -c core.fsmonitor={w} status"));
    peer_files_refused(r, &format!("git config core.fsmonitor {w}"));
    peer_files_refused(r, &format!("git config diff.external '{w} --quiet'"));
    allowed(r, &format!("git -c core.editor={e} commit"));
    allowed(r, &format!("git config core.editor {e}"));
    let reason = asked(r, &format!("git config core.pager {b}"));
    assert!(
        reason.contains("[guard:runs-code]") && reason.contains("cannot read"),
        "{reason}"
    );
    let reason = asked(r, "export GIT_EDITOR=\"$MY_EDITOR\"; git commit");
    assert!(reason.contains("[guard:runs-code]"), "{reason}");
    // An included config file may set any program.
    let reason = asked(r, "git config include.path ../other.cfg");
    assert!(reason.contains("include.path"), "{reason}");
    asked(r, "git -c include.path=../other.cfg status");
    // So may a config file the environment names (red-team 4/11).
    for cmd in [
        "GIT_CONFIG_GLOBAL=../evil.cfg git status",
        "env GIT_CONFIG_SYSTEM=../evil.cfg git status",
        "HOME=../home git status",
        "export XDG_CONFIG_HOME=../xdg; git status",
        "export HOME=../home && git status",
    ] {
        let reason = asked(r, cmd);
        assert!(reason.contains("config file"), "{cmd}: {reason}");
    }
    allowed(r, "GIT_CONFIG_GLOBAL=/dev/null git status");
    peer_files_refused(r, "export EDITOR='rm notes.txt #'; git commit --amend");
    peer_files_refused(r, "export VISUAL='rm notes.txt #' && git commit");
}

#[test]
fn config_writes_that_arm_a_program_are_judged_as_that_program() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    for cmd in [
        "git config core.fsmonitor 'rm notes.txt #'",
        "git config --local core.pager 'rm notes.txt'",
        "git config --global core.editor 'rm notes.txt'",
        "git config --worktree sequence.editor 'rm notes.txt'",
        "git config -f .git/config diff.external 'rm notes.txt #'",
        "git config --file=../x.cfg core.sshCommand 'rm notes.txt #'",
        "git config set core.askPass 'rm notes.txt'",
        "git config --add diff.x.command 'rm notes.txt'",
        "git config --replace-all merge.x.driver 'rm notes.txt' '.*'",
        "git config filter.x.process 'rm notes.txt'",
        "git config filter.x.smudge 'rm notes.txt'",
        "git config credential.helper '!rm notes.txt'",
        "git config gpg.program 'rm notes.txt'",
        "git config gpg.ssh.program 'rm notes.txt'",
        "git config alias.x '!rm notes.txt'",
        "git config uploadpack.packObjectsHook 'rm notes.txt'",
        "git config Core.Pager 'rm notes.txt'",
        "git config remote.origin.url 'ext::sh -c rm% notes.txt'",
        "git -C . config core.fsmonitor 'rm notes.txt #'",
    ] {
        peer_files_refused(r, cmd);
    }
}

#[test]
fn hooks_path_on_the_line_is_asked_while_work_is_at_risk() {
    let f = fixture();
    let r = &f.repo.root;
    // A clone where nothing is at risk: silent.
    let solo = f.base.join("solo");
    git(&f.base, &["clone", "-q", r.to_str().unwrap(), "solo"]);
    allowed(
        &solo,
        "git -c core.hooksPath=/dev/null commit --allow-empty -qm x",
    );
    two_sessions(&f);
    for cmd in [
        "git -c core.hooksPath=/tmp commit -qm x",
        "git -c core.hookspath=/tmp commit -qm x",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/tmp git commit",
    ] {
        let reason = asked(r, cmd);
        assert!(
            reason.contains("[guard:runs-code]") && reason.contains("git-dibs's git hooks"),
            "{cmd}: {reason}"
        );
    }
}

#[test]
fn harmless_program_values_and_everyday_config_stay_silent() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    for cmd in [
        "git commit -m x",
        "git -c color.ui=always log",
        "git -c core.quotepath=off status",
        "git config user.name X",
        "git config --get core.editor",
        "git config --unset core.pager",
        "git config alias.st status",
        "git config alias.lg '!git log --oneline'",
        "git config core.pager 'less -R'",
        "git config core.pager 'delta | less'",
        "git config core.editor 'code --wait'",
        "git config core.fsmonitor true",
        "git config credential.helper store",
        "git config credential.helper 'cache --timeout=3600'",
        "git config diff.external difft",
        "GIT_EDITOR=true git commit --amend",
        "EDITOR=vim git commit",
        "git -c core.editor=vim commit",
        "git -c core.pager=less log",
        "git -c core.pager=cat log",
        "git -c interactive.diffFilter='delta --color-only' add -p mine.rs",
        "git -c tar.tgz.command='gzip -cn' archive -o /tmp/x.tgz HEAD",
        "git -c sendemail.smtpServer=smtp.example.com send-email --dry-run HEAD^..",
        "git -c core.fsmonitor=false status",
        "git -c pager.log=false log",
        "GIT_PAGER=cat git log",
        "GIT_SSH_COMMAND='ssh -i key' git fetch",
        "git -c core.sshCommand='ssh -o BatchMode=yes' fetch",
        "git difftool -x meld",
        "git rebase -x 'cargo test' HEAD~1",
        "git fetch origin",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn messages_name_the_program_and_where_it_was_set() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    let shown = |cmd: &str| answer(&f.repo, &at_now(r, &bash_event(ME, r, cmd)));
    insta::assert_snapshot!(
        "programs_on_the_line",
        shown("GIT_EDITOR='rm notes.txt' git commit --amend")
    );
    insta::assert_snapshot!(
        "programs_config_write",
        shown("git config core.fsmonitor 'rm -f notes.txt #'")
    );
    insta::assert_snapshot!(
        "programs_hooks_path",
        shown("git -c core.hooksPath=/tmp commit -qm x")
    );
}
