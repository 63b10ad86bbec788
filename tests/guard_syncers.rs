//! Programs that change whole folders (red team 4, leftovers): `rclone delete|purge|deletefile`
//! of a local path and `rclone sync|bisync|move|moveto` over one are refused over a live peer's
//! uncommitted files as the `rm -rf` / `rsync --delete` they amount to; `unison`, `cpio -i`/`-p`
//! and the interactive bulk renamers (`vidir`, `qmv`, `vimv`, `edir`), whose effect only running
//! them tells, are asked about when a peer holds files where they reach. Each with the
//! spellings nobody wrote down, and the everyday uses that stay silent. Real repositories, the
//! real binary.

mod common;
mod guard_support;

use common::snap::answer;
use guard_support::*;

#[test]
fn rclone_removing_or_syncing_over_a_peers_files_is_refused() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let abs = r.join("src");
    for cmd in [
        "rclone purge src".to_owned(),
        "rclone delete .".to_owned(),
        "rclone delete ./src --rmdirs".to_owned(),
        "rclone deletefile notes.txt".to_owned(),
        "rclone sync remote:backup ./src".to_owned(),
        "rclone sync /tmp/empty src -P".to_owned(),
        "rclone bisync src remote:mirror --resync".to_owned(),
        "rclone move src remote:bak".to_owned(),
        "rclone moveto notes.txt remote:n.txt".to_owned(),
        "rclone --config /dev/null purge src".to_owned(),
        "rclone -v --transfers 8 purge src".to_owned(),
        "rclone purge :local:src".to_owned(),
        format!("rclone purge {}", abs.display()),
        "/usr/bin/rclone purge src".to_owned(),
        "command rclone purge src".to_owned(),
        "env RCLONE_CONFIG=/dev/null rclone purge src".to_owned(),
        "sudo rclone delete src".to_owned(),
        "sh -c 'rclone purge src'".to_owned(),
        "cd src && rclone delete .".to_owned(),
    ] {
        let reason = denied(r, &cmd);
        assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
        assert!(reason.contains(&PEER[..8]), "{cmd}: {reason}");
    }
    // Its paths from `xargs`: only known when it runs.
    for cmd in [
        "echo src | xargs rclone purge",
        "find . -maxdepth 0 | xargs -I{} rclone purge {}",
    ] {
        asked(r, cmd);
    }
    let run = bash(r, "rclone purge src");
    insta::assert_snapshot!("rclone_purge", answer(&f.repo, &run));
    // A filter picks the files when it runs: asked.
    let reason = asked(r, "rclone delete src --include '*.rs'");
    assert!(reason.contains("src/lib.rs"), "{reason}");
    for cmd in [
        "rclone copy src remote:backup",
        "rclone sync src remote:backup",
        "rclone sync . remote:backup --exclude target/**",
        "rclone delete remote:old",
        "rclone purge remote:tmp",
        "rclone sync remote:site ./public",
        "rclone purge src --dry-run",
        "rclone delete -n src",
        "rclone ls remote:",
        "rclone lsf src",
        "rclone move mine.rs remote:x",
        "rclone check src remote:backup",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn unison_cpio_and_bulk_renamers_are_asked_where_a_peer_holds_files() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "unison src /tmp/mirror -batch",
        "unison /tmp/mirror . -auto -ui text",
        "unison . ssh://host//srv/x -batch",
        "unison myprofile",
        "cpio -idu < /tmp/a.cpio",
        "cpio -i -d -u -F /tmp/a.cpio",
        "cpio --extract --directory=src < /tmp/a.cpio",
        "cpio -iv 'src/*' < /tmp/a.cpio",
        "cpio -i -D src < /tmp/a.cpio",
        "find /tmp/t | cpio -pdm src",
        "cpio --pass-through --make-directories . < /tmp/list",
        "cpio -pdm .. < /tmp/list",
        "vidir ..",
        "vidir",
        "vidir src",
        "find . -name '*.rs' | vidir -",
        "qmv -f do src",
        "vimv notes.txt",
        "edir src",
        "command vidir src",
        "cd src && vidir",
    ] {
        let reason = asked(r, cmd);
        assert!(
            reason.contains("[guard:peer-files]") && reason.contains(&PEER[..8]),
            "{cmd}: {reason}"
        );
    }
    asked(r, "ls | xargs vidir");
    let run = bash(r, "vidir src");
    insta::assert_snapshot!("vidir_src", answer(&f.repo, &run));
    std::fs::create_dir_all(r.join("build")).unwrap();
    for cmd in [
        "find . | cpio -o > /tmp/a.cpio",
        "cpio -o -F /tmp/a.cpio < /tmp/list",
        "cpio -it < /tmp/a.cpio",
        "cpio -i --to-stdout < /tmp/a.cpio",
        "cpio -idu -D /tmp/out < /tmp/a.cpio",
        "cpio -idu -D build < /tmp/a.cpio",
        "find /tmp/t | cpio -pdm /tmp/copy",
        "vidir /tmp/elsewhere",
        "vidir build",
        "qmv mine.rs",
        "vidir --help",
        "unison -version",
        "unison build /tmp/mirror -batch",
    ] {
        allowed(r, cmd);
    }
}

/// Red team 8b/01-03, 20-22: an archive extracted, or files copied into a folder, over files a
/// live peer holds is asked about as `cpio -i` is; into a new or empty folder, onto files no
/// peer holds, or out of the worktree, it stays silent.
#[test]
fn extracting_or_copying_over_a_peers_files_is_asked() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let tpl = f.base.join("tpl");
    std::fs::create_dir_all(tpl.join("src")).unwrap();
    std::fs::write(tpl.join("src/lib.rs"), "template\n").unwrap();
    std::fs::write(tpl.join("notes.txt"), "template\n").unwrap();
    std::fs::write(tpl.join("other.txt"), "template\n").unwrap();
    let t = tpl.to_str().unwrap();
    for cmd in [
        "git archive -o ../h.tar HEAD && tar xf ../h.tar".to_owned(),
        "git archive HEAD > ../h.tar; tar -xf ../h.tar -C .".to_owned(),
        "git archive --format=zip -o ../h.zip HEAD && unzip -oq ../h.zip".to_owned(),
        "git archive HEAD | (cd src && tar -x --strip-components=1 -f -)".to_owned(),
        "tar --extract --file=../h.tar".to_owned(),
        "tar xvfC ../h.tar src".to_owned(),
        "bsdtar -xf ../h.zip".to_owned(),
        "unzip -o ../h.zip -d src".to_owned(),
        "7z x ../h.7z -o.".to_owned(),
        format!("cp {t}/notes.txt ."),
        format!("cp -f {t}/src/lib.rs src/"),
        format!("cp -t src {t}/src/lib.rs"),
        format!("cp --target-directory=src {t}/src/lib.rs"),
        format!("cp -r {t}/. ."),
        format!("cp -a {t}/src ."),
        format!("rsync -a {t}/ ./"),
        format!("rsync -av {t}/notes.txt ."),
        format!("sh -c 'cp {t}/notes.txt .'"),
    ] {
        let reason = asked(r, &cmd);
        assert!(
            reason.contains("[guard:peer-files]") && reason.contains(&PEER[..8]),
            "{cmd}: {reason}"
        );
    }
    for cmd in [
        "tar xf ../h.tar -C /tmp/elsewhere-out".to_owned(),
        "mkdir -p ../fresh && tar xf ../h.tar -C ../fresh".to_owned(),
        "tar tf ../h.tar".to_owned(),
        "tar -xkf ../h.tar".to_owned(),
        "tar -czf /tmp/src.tgz src".to_owned(),
        "unzip -l ../h.zip".to_owned(),
        "unzip -n ../h.zip".to_owned(),
        format!("cp {t}/other.txt ."),
        format!("cp -n {t}/notes.txt ."),
        format!("rsync -a {t}/other.txt ./"),
        format!("rsync -an {t}/ ./"),
        "cp mine.rs /tmp/".to_owned(),
        "rsync -a src/ /tmp/src-copy/".to_owned(),
    ] {
        allowed(r, &cmd);
    }
}
