//! Non-git programs over a live peer's files (third red team, findings 06 and 21): programs
//! that remove what they are given (compressors, `tar --remove-files`, `zip -m`, `7z -sdel`,
//! perl `rename`) are judged as `rm` of it, and every spelling that truncates or rewrites a
//! peer's file (`> f`, `install`, `sort -o`, `ed`/`ex`/`vim -es`, awk, `find -exec truncate`)
//! gets the co-edit warning `cp` gets; a folder copied over them (`cp -r DIR/. .`) is asked
//! about, as an archive extracted there is. The everyday spellings beside them stay silent. Real repositories, the real binary.

mod common;
mod guard_support;

use common::snap::answer;
use common::*;
use guard_support::*;

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
        // Siblings and other names of the same programs (red-team 4/02).
        "zstdmt -q --rm notes.txt".to_owned(),
        "pzstd --rm notes.txt".to_owned(),
        "brotli --rm notes.txt".to_owned(),
        format!("7zz a -sdel {}.7z notes.txt", out.display()),
        format!("rar m {}.rar notes.txt", out.display()),
        format!("rar a -df {}.rar src", out.display()),
        "rename.ul notes old notes.txt".to_owned(),
        "toybox rm notes.txt".to_owned(),
        "busybox gzip notes.txt".to_owned(),
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
        "zstdmt notes.txt",
        "brotli notes.txt",
        "rar a /tmp/out.rar notes.txt",
        "7zz a /tmp/out.7z src",
        "toybox ls src",
        "iconv -f utf-8 -t ascii -o /tmp/out.txt notes.txt",
        "dos2unix mine.rs",
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
        "iconv -f utf-8 -t ascii -o notes.txt mine.rs".to_owned(),
        "sort mine.rs | sponge notes.txt".to_owned(),
        "dos2unix src/lib.rs".to_owned(),
        "fallocate -p -o 0 -l 4 notes.txt".to_owned(),
        // sed's `w`/`W` commands and `s///w` flag (red team 8b/17).
        "sed -n 'w notes.txt' mine.rs".to_owned(),
        "sed -i '1w src/lib.rs' mine.rs".to_owned(),
        "sed -n '1W notes.txt' mine.rs".to_owned(),
        "sed 's/x/y/w notes.txt' mine.rs".to_owned(),
        "sed -e p -e '$w notes.txt' mine.rs".to_owned(),
        "sh -c \"sed -n '/a/,/b/w src/lib.rs' mine.rs\"".to_owned(),
    ] {
        warned(r, &cmd);
    }
    // A folder copied over a peer's files is asked about, as an archive extracted there is
    // (red team 8b/21).
    for cmd in [
        format!("cp -r {}/. .", tmpl.display()),
        format!("cp -a {}/src .", tmpl.display()),
        format!("cd src && cp -R {}/src/. .", tmpl.display()),
    ] {
        asked(r, &cmd);
    }
    let run = hook(r, &bash_event(ME, r, "> src/lib.rs"));
    insta::assert_snapshot!("rewrite_bare_redirect", answer(&f.repo, &run));
    // Everyday spellings, and the same over files no one else holds.
    for cmd in [
        "sort -o sorted.txt mine.rs",
        "sort mine.rs",
        "sed -n '/fn/p' src/lib.rs",
        "sed -n 'w /tmp/lines.txt' src/lib.rs",
        "sed 's/w/W/g' src/lib.rs",
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

fn executable(dir: &std::path::Path, rel: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A project with a Makefile, a clean script and the everyday build entry points.
fn project(r: &std::path::Path) {
    fs_write(
        r,
        "Makefile",
        "RM_ALL = $(RM) -r\n\nall: build\n\nbuild:\n\tcargo build\n\ntest: build\n\tcargo test\n\n\
         clean:\n\t@rm -f *.txt\nclean2:\n\t-$(RM_ALL) src\n\
         clean3:\n\tfind . -name '*.txt' -delete\nclean4:\n\t$(RM) $(FILE)\n\
         clean5:\n\t@./scripts/clean.sh\nsub:\n\t$(MAKE) -C sub wipe\n.PHONY: all clean\n",
    );
    executable(r, "scripts/clean.sh", "#!/bin/sh\nrm -f notes.txt\n");
    executable(r, "scripts/take.sh", "#!/bin/sh\nrm -rf \"$1\"\n");
    executable(
        r,
        "tools/gen.py",
        "#!/usr/bin/env python3\nimport os\nos.remove('notes.txt')\n",
    );
    executable(
        r,
        "gradlew",
        "#!/bin/sh\nif [ -n \"$JAVA_HOME\" ]; then JAVACMD=$JAVA_HOME/bin/java; else JAVACMD=java; fi\n\
         eval set -- $(printf '%s' \"$DEFAULT_JVM_OPTS\")\nexec \"$JAVACMD\" \"$@\"\n",
    );
    executable(
        r,
        "configure",
        "#!/bin/sh\nCC=${CC-cc}\nrm -f conftest* core\n$CC -o conftest conftest.c\n\
         eval \"$ac_compile\"\necho ok > config.status\n",
    );
    std::fs::create_dir_all(r.join("sub")).unwrap();
    fs_write(r, "sub/Makefile", "wipe:\n\trm -f ../notes.txt\n");
    git(
        r,
        &[
            "add",
            "Makefile",
            "scripts",
            "tools",
            "gradlew",
            "configure",
            "sub",
        ],
    );
    git(r, &["commit", "-qm", "build"]);
}

#[test]
fn regression_scripts_run_by_path_and_make_recipes_are_read() {
    let f = fixture();
    let r = &f.repo.root;
    project(r);
    two_sessions(&f);
    for cmd in [
        "./scripts/clean.sh",
        "scripts/clean.sh",
        "bash -x ./scripts/clean.sh",
        "command ./scripts/clean.sh",
        "nice ./scripts/clean.sh",
        "./tools/gen.py",
        "tools/gen.py",
        "make clean",
        "make clean2",
        "make clean4 FILE=notes.txt",
        "make clean5",
        "make -s clean clean2",
        "make -C . clean",
        "make -f Makefile clean",
        "make --file=Makefile clean",
        "make -j4 clean",
        "make -k -j 4 clean",
        "make sub",
        "gmake clean",
    ] {
        let reason = stopped(r, cmd);
        assert!(reason.contains("[guard:"), "{cmd}: {reason}");
    }
    let reason = asked(r, "make clean3");
    assert!(reason.contains("find"), "{reason}");
    // A target only known when the script runs: judged by what is at risk within reach.
    let reason = asked(r, "./scripts/take.sh build");
    assert!(reason.contains("[guard:runs-code]"), "{reason}");
    insta::assert_snapshot!("make_clean", answer(&f.repo, &bash(r, "make clean")));
    insta::assert_snapshot!(
        "script_by_path",
        answer(&f.repo, &bash(r, "./scripts/clean.sh"))
    );
    for cmd in [
        "make",
        "make test",
        "make build -j8",
        "make -n clean",
        "make --dry-run clean2",
        "make clean4",
        "make no-such-target",
        "./configure",
        "./gradlew build",
        "cd scripts && ./clean.sh",
        "./target/debug/app",
    ] {
        allowed(r, cmd);
    }
    // A script that is not executable does not run.
    std::fs::set_permissions(
        r.join("scripts/clean.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    allowed(r, "./scripts/clean.sh");
}

#[test]
fn a_makefile_that_is_not_followed_falls_back_to_its_recipe_lines() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    fs_write(
        r,
        "Makefile",
        "include config.mk\nifeq ($(V),1)\nQ=\nendif\nclean:\n\trm -rf ../elsewhere\nbuild:\n\tcargo build\n",
    );
    let reason = asked(r, "make build");
    assert!(reason.contains("[guard:runs-code]"), "{reason}");
    fs_write(
        r,
        "Makefile",
        "include config.mk\nbuild:\n\tcargo build\ntest:\n\tcargo test\n",
    );
    allowed(r, "make build");
    allowed(r, "make test");
}

#[test]
fn a_solo_session_runs_its_own_cleanups_in_silence() {
    let repo = TestRepo::new();
    let r = &repo.root;
    project(r);
    let path = r.join("notes.txt");
    hook(r, &edit_event("PreToolUse", "Write", ME, r, &path));
    fs_write(r, "notes.txt", "mine\n");
    hook(r, &edit_event("PostToolUse", "Write", ME, r, &path));
    for cmd in [
        "make clean",
        "make clean4 FILE=notes.txt",
        "./scripts/clean.sh",
        "make",
        "./gradlew build",
        "gzip notes.txt",
        "echo clean -fd | xargs git",
        "> notes.txt",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn regression_renamers_and_desktop_removers_of_a_peers_file_are_refused() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "mmv notes.txt old.txt",
        "mmv 'notes.*' 'old.#1'",
        "mmv -d 'src/*.rs' 'src/#1.bak'",
        "mmv -r notes.txt n.txt",
        "gio trash notes.txt",
        "gio remove -f src/lib.rs",
        "gio move notes.txt /tmp/x.txt",
        "gio rename notes.txt n.txt",
        "gvfs-trash notes.txt",
        "kioclient5 move notes.txt trash:/",
        "kioclient5 remove notes.txt",
        "kde-mv notes.txt /tmp/",
        "srm -f notes.txt",
        "wipe -f notes.txt",
        "safe-rm notes.txt",
        "rmw notes.txt",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
    }
    for cmd in [
        "mcp notes.txt src/lib.rs",
        "mmv -c mine.rs notes.txt",
        "ruby -i -pe 'gsub(/a/, \"b\")' notes.txt",
        "patch -o notes.txt mine.rs /dev/null",
        "gio copy mine.rs notes.txt",
        "printf x | gio save notes.txt",
    ] {
        warned(r, cmd);
    }
    for cmd in [
        "mmv mine.rs mine2.rs",
        "mmv 'nothing.*' 'x.#1'",
        "mcp notes.txt /tmp/copy.txt",
        "mmv -n notes.txt x.txt",
        "gio info notes.txt",
        "gio trash --empty",
        "gio copy notes.txt /tmp/copy.txt",
        "kioclient5 cat notes.txt",
        "ruby -e 'p 1' notes.txt",
        "srm -f mine.rs",
    ] {
        allowed(r, cmd);
    }
}
