//! Non-git programs over a live peer's files (third red team, findings 06 and 21): programs
//! that remove what they are given (compressors, `tar --remove-files`, `zip -m`, `7z -sdel`,
//! perl `rename`) are judged as `rm` of it, and every spelling that truncates or rewrites a
//! peer's file (`> f`, `install`, `sort -o`, `ed`/`ex`/`vim -es`, awk, `find -exec truncate`,
//! `cp -r DIR/. .`) gets the co-edit warning `cp` gets. The everyday spellings beside them stay
//! silent. Real repositories, the real binary.

mod common;
mod guard_support;

use common::snap::answer;
use common::*;
use guard_support::*;

/// The co-edit warning (never a refusal) naming the peer, for `command`.
#[track_caller]
fn warned(cwd: &std::path::Path, command: &str) -> String {
    let run = bash(cwd, command);
    assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    assert!(!run.stdout.is_empty(), "`{command}` was silent");
    let v = run.json();
    let msg = v["systemMessage"].as_str().unwrap_or("").to_owned();
    assert!(msg.contains(&PEER[..8]), "{command}: {v}");
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "{command}: {v}"
    );
    msg
}

#[test]
fn regression_removers_of_a_peers_file_are_refused_as_rm() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let out = f.base.join("out");
    for cmd in [
        "gzip notes.txt".to_owned(),
        "gzip -9 notes.txt".to_owned(),
        "gzip -r src".to_owned(),
        "bzip2 src/lib.rs".to_owned(),
        "xz -T 2 notes.txt".to_owned(),
        "lzma notes.txt".to_owned(),
        "zstd --rm notes.txt".to_owned(),
        "lz4 --rm notes.txt".to_owned(),
        format!("tar --remove-files -cf {}.tar notes.txt", out.display()),
        format!("tar --rem -czf {}.tgz src", out.display()),
        format!("tar -cf {}.tar --remove-files ./src/lib.rs", out.display()),
        format!("zip -qm {}.zip notes.txt", out.display()),
        format!("zip -rm {}.zip src", out.display()),
        format!("zip --move {}.zip notes.txt", out.display()),
        format!("7z a -sdel {}.7z notes.txt", out.display()),
        "rename s/notes/old/ notes.txt".to_owned(),
        "rename -v 's/\\.rs$/.bak/' src/lib.rs".to_owned(),
        "cd src && gzip lib.rs".to_owned(),
        "nice -n 5 gzip notes.txt".to_owned(),
        "command gzip notes.txt".to_owned(),
        "env LC_ALL=C xz notes.txt".to_owned(),
        "sudo bzip2 notes.txt".to_owned(),
        format!("gzip {}", r.join("notes.txt").display()),
    ] {
        let reason = denied(r, &cmd);
        assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
    }
    // The one run shown in full.
    let run = hook(r, &bash_event(ME, r, "gzip notes.txt"));
    insta::assert_snapshot!("removers_gzip", answer(&f.repo, &run));
    // Keeping the input, writing to standard output, a file no one holds, one's own file.
    fs_write(r, "build.log", "log\n");
    for cmd in [
        "gzip -k notes.txt",
        "gzip --keep notes.txt",
        "gzip -c notes.txt > /tmp/x.gz",
        "gzip -9c notes.txt",
        "gzip --stdout notes.txt",
        "zstd notes.txt",
        "lz4 notes.txt",
        "gzip build.log",
        "gzip mine.rs",
        "tar czf /tmp/out.tgz src",
        "zip -r /tmp/out.zip src",
        "7z a /tmp/out.7z src",
        "rename -n s/notes/old/ notes.txt",
        "gzip -t /tmp/x.gz",
    ] {
        allowed(r, cmd);
    }
}

fn fs_write(dir: &std::path::Path, rel: &str, text: &str) {
    std::fs::write(dir.join(rel), text).unwrap();
}

#[test]
fn regression_every_spelling_that_rewrites_a_peers_file_warns() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let tmpl = f.base.join("tmpl");
    std::fs::create_dir_all(tmpl.join("src")).unwrap();
    fs_write(&tmpl, "src/lib.rs", "template\n");
    for cmd in [
        ": > src/lib.rs".to_owned(),
        "> src/lib.rs".to_owned(),
        ">src/lib.rs".to_owned(),
        "printf ',d\\nw\\nq\\n' | ed -s src/lib.rs".to_owned(),
        "ed src/lib.rs <<< $',d\\nw\\nq'".to_owned(),
        "ex -sc '%d|x' src/lib.rs".to_owned(),
        "vim -es -c '%d' -c wq src/lib.rs".to_owned(),
        "vi -e -s +'%d' +wq src/lib.rs".to_owned(),
        "nvim --headless +'%d' +wq src/lib.rs".to_owned(),
        "awk 'BEGIN{printf \"\" > \"src/lib.rs\"}'".to_owned(),
        "awk '{ print $1 >> \"notes.txt\" }' mine.rs".to_owned(),
        "gawk -i inplace '{ print }' src/lib.rs".to_owned(),
        "find src -type f -exec truncate -s0 {} +".to_owned(),
        "find . -name lib.rs -exec sed -i s/a/b/ {} \\;".to_owned(),
        "install /dev/null src/lib.rs".to_owned(),
        "install -m 644 /dev/null ./src/lib.rs".to_owned(),
        "install -t src /dev/null"
            .to_owned()
            .replace("/dev/null", "lib.rs"),
        "sort -o src/lib.rs /dev/null".to_owned(),
        "sort -ro notes.txt notes.txt".to_owned(),
        "sort --output=notes.txt /dev/null".to_owned(),
        format!("cp -r {}/. .", tmpl.display()),
        format!("cp -a {}/src .", tmpl.display()),
        format!("cd src && cp -R {}/src/. .", tmpl.display()),
    ] {
        warned(r, &cmd);
    }
    let run = hook(r, &bash_event(ME, r, "> src/lib.rs"));
    insta::assert_snapshot!("rewrite_bare_redirect", answer(&f.repo, &run));
    // Everyday spellings, and the same over files no one else holds.
    for cmd in [
        "sort -o sorted.txt mine.rs",
        "sort mine.rs",
        "vim src/lib.rs",
        "vim -R -es -c '%p' src/lib.rs",
        "ed",
        "awk '{ print $1 }' src/lib.rs",
        "awk '$1 > \"m\" { n++ } END { print n }' src/lib.rs",
        "find src -name '*.rs' -exec grep -n x {} +",
        "install -d build",
        "install -m 755 mine.rs /tmp/bin-x",
        "> mine.rs",
        "cp -r src /tmp/copy",
        "ls src",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn regression_xargs_input_that_supplies_gits_subcommand_is_judged() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let args = f.base.join("args.txt");
    fs_write(&f.base, "args.txt", "reset\n--hard\n");
    // Input known here: judged as the command it makes.
    for cmd in [
        "echo reset --hard | xargs git".to_owned(),
        "echo clean -fd | xargs git".to_owned(),
        "printf 'stash\\n-u\\n' | xargs git".to_owned(),
        "xargs git <<< 'checkout -f .'".to_owned(),
        format!("xargs git < {}", args.display()),
        format!("cat {} | xargs -t git", args.display()),
        "echo --hard | xargs git reset".to_owned(),
        "echo -fd | xargs git -C . clean".to_owned(),
    ] {
        let reason = stopped(r, &cmd);
        assert!(reason.contains("[guard:"), "{cmd}: {reason}");
    }
    insta::assert_snapshot!(
        "xargs_git_input",
        answer(&f.repo, &bash(r, "echo reset --hard | xargs git"))
    );
    // Input only known when it runs: tried at its most destructive, put to the person.
    for cmd in [
        format!("xargs -a {} git", args.display()),
        format!("xargs --arg-file={} git", args.display()),
        "some-tool | xargs git".to_owned(),
        "some-tool | xargs git reset".to_owned(),
    ] {
        let reason = asked(r, &cmd);
        assert!(reason.contains("`xargs`'s input"), "{cmd}: {reason}");
    }
    for cmd in [
        "echo status | xargs git",
        "echo log --oneline -1 | xargs git",
        "some-tool | xargs git log",
        "git ls-files | xargs grep -n x",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn regression_editors_running_shell_commands_are_read() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    // Literal shell text: judged as that command (`rm` of the peer's file is refused).
    for cmd in [
        "vim -es -c '!rm notes.txt' -c q",
        "vim -E -s -c 'silent !rm notes.txt' -c q",
        "ex -sc '!rm notes.txt' -c q",
        "vi -e +'!rm -f notes.txt' +q",
        "nvim --headless -c 'r !rm notes.txt' -c 'qa!'",
        "less +'!rm notes.txt' mine.rs",
        "sqlite3 /tmp/db.sqlite '.shell rm notes.txt'",
        "sqlite3 -cmd '.system rm notes.txt' /tmp/db.sqlite",
        "emacs --batch --eval '(delete-file \"notes.txt\")'",
        "emacs -batch -eval '(delete-directory \"src\" t)'",
        "emacs --batch --eval='(shell-command \"git clean -fd\")'",
        "emacs --batch --eval '(rename-file \"notes.txt\" \"x.txt\")'",
        "command vim -es -c '!git stash -u' -c q",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:"), "{cmd}: {reason}");
    }
    insta::assert_snapshot!(
        "editor_shell_command",
        answer(&f.repo, &bash(r, "vim -es -c '!rm notes.txt' -c q"))
    );
    // Code that runs programs by other means: judged by what is at risk within reach.
    for cmd in [
        "vim -es -c 'call system(\"x\")' -c q",
        "vim -c 'call delete(\"notes.txt\")' -c q",
        "emacs --batch --eval '(funcall (intern \"delete-file\") \"notes.txt\")'",
        "emacs --batch --eval '(call-process \"rm\" nil nil nil \"notes.txt\")'",
        "emacs --script cleanup.el",
    ] {
        let reason = asked(r, cmd);
        assert!(reason.contains("[guard:runs-code]"), "{cmd}: {reason}");
    }
    for cmd in [
        "vim mine.rs",
        "vim -es -c '%s/a/b/g' -c wq mine.rs",
        "vim -c 'set ft=python' mine.rs",
        "vim -es -c '!ls' -c q",
        "less +G mine.rs",
        "sqlite3 /tmp/db.sqlite 'select 1'",
        "emacs --batch --eval '(message \"hi\")'",
        "emacs --batch --eval '(shell-command \"ls\")'",
    ] {
        allowed(r, cmd);
    }
}
