//! File names that are not UTF-8 (what `unzip` of a Windows archive or `tar x` of a Latin-1
//! tarball leaves: `caf\351.txt`) are work like any other: a shell command's such files are
//! snapshotted, a sweep keeps their later changes, `recover` lists them with their bytes quoted
//! (never a raw control character) and writes them back under their exact names, byte for byte.
#![cfg(unix)]

mod common;
mod recover_support;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use recover_support::*;

/// `git dibs recover ARGS` with arguments that may not be UTF-8: (exit code, stdout).
fn recover_os(cwd: &Path, args: &[&OsStr]) -> (i32, Vec<u8>) {
    let out = Command::new(bin())
        .arg("recover")
        .args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git-dibs runs");
    (out.status.code().unwrap_or(-1), out.stdout)
}

fn file(root: &Path, name: &[u8]) -> PathBuf {
    root.join(OsStr::from_bytes(name))
}

/// A Python line that writes each `(name, content)` (names as bytes, folders made).
fn python_writes(files: &[(&[u8], &[u8])]) -> String {
    let lit = |b: &[u8]| -> String { b.iter().map(|c| format!("\\x{c:02x}")).collect() };
    let mut script = String::from("import os\n");
    for (name, content) in files {
        script.push_str(&format!(
            "n = b'{}'\nd = os.path.dirname(n)\nd and os.makedirs(d, exist_ok=True)\n\
             open(n, 'wb').write(b'{}')\n",
            lit(name),
            lit(content)
        ));
    }
    script
}

const NAMES: &[(&[u8], &[u8])] = &[
    (b"caf\xe9.txt", b"latin-1 name\n"),
    (
        b"dir\xff/inner.txt",
        b"in a folder whose name is not UTF-8\n",
    ),
    (b"esc\x1b[31m\xe9.txt", b"an escape in the name\n"),
    (
        b"pct%00-%2F-%25\xe9",
        b"percent signs that look like escapes\n",
    ),
    (b"plain.txt", b"an ordinary neighbour\n"),
];

#[test]
fn names_that_are_not_utf8_come_back_byte_for_byte_after_a_peers_clean() {
    let repo = TestRepo::new();
    let root = &repo.root;
    std::fs::write(root.join("gen.py"), python_writes(NAMES)).unwrap();
    let writer = Agent::new("unzipper", root);
    writer.bash("python3 gen.py && rm gen.py");
    for (name, _) in NAMES {
        assert!(file(root, name).exists());
    }

    // The listing names every one, quoted, and prints no control character.
    let (code, listing) = recover_os(root, &[]);
    assert_eq!(code, 0);
    let text = String::from_utf8(listing).expect("the listing is UTF-8");
    assert!(text.contains("caf\\351.txt"), "{text}");
    assert!(text.contains("dir\\377/inner.txt"), "{text}");
    assert!(text.contains("pct%00-%2F-%25\\351"), "{text}");
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{text:?}"
    );
    let json = recover_json(root, &[]);
    let paths = listed_paths(&json);
    assert_eq!(paths.len(), NAMES.len(), "{json}");
    assert!(paths.contains(&"caf\u{0}e9.txt"), "{paths:?}");
    assert!(json["skipped"].as_array().unwrap().is_empty(), "{json}");

    let peer = Agent::new("tidier", root);
    peer.bash("git clean -fdq");
    collect_garbage(root);
    assert!(!file(root, b"caf\xe9.txt").exists());

    // One by its exact name, then the rest with the folder.
    let (code, out) = recover_os(root, &[OsStr::from_bytes(b"caf\xe9.txt")]);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&out));
    assert!(
        String::from_utf8_lossy(&out).contains("caf\\351.txt: restored"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    assert_recovers(
        root,
        &["."],
        &NAMES
            .iter()
            .map(|(n, c)| (file(root, n), c.to_vec()))
            .collect::<Vec<_>>(),
    );
    // Nothing else was made: the names are exactly the ones written.
    let mut made: Vec<Vec<u8>> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    made.sort();
    assert_eq!(
        made,
        [
            &b".git"[..],
            b"README.md",
            b"caf\xe9.txt",
            b"dir\xff",
            b"esc\x1b[31m\xe9.txt",
            b"pct%00-%2F-%25\xe9",
            b"plain.txt",
            b"src",
        ]
        .map(<[u8]>::to_vec)
    );
}

#[test]
fn a_later_change_to_such_a_file_is_swept_and_a_different_current_one_is_not_overwritten() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let name: &[u8] = b"r\xe9sum\xe9.md";
    std::fs::write(root.join("gen.py"), python_writes(&[(name, b"first\n")])).unwrap();
    let writer = Agent::new("writer", root);
    writer.bash("python3 gen.py && rm gen.py");
    // A person's editor changes it between tool calls; a peer's destroying command is preceded
    // by the sweep, which keeps the change.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(file(root, name), b"second, by a person\n").unwrap();
    let peer = Agent::new("peer", root);
    peer.bash("python3 -c \"import os; os.remove(b'r\\xe9sum\\xe9.md')\"");
    collect_garbage(root);
    assert!(!file(root, name).exists());
    assert_recovers(
        root,
        &["."],
        &[(file(root, name), b"second, by a person\n".to_vec())],
    );

    // Something else there now, kept nowhere: the snapshot goes beside it, under the exact name.
    std::fs::write(file(root, name), b"someone else's\n").unwrap();
    let (code, out) = recover_os(root, &[OsStr::from_bytes(name)]);
    assert_eq!(code, 0);
    let out = String::from_utf8_lossy(&out).into_owned();
    assert!(out.contains("r\\351sum\\351.md differs now"), "{out}");
    assert_eq!(
        std::fs::read(file(root, name)).unwrap(),
        b"someone else's\n"
    );
    let beside: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .as_bytes()
                .starts_with(b"r\xe9sum\xe9.md.recovered-")
        })
        .collect();
    assert_eq!(beside.len(), 1, "{out}");
    assert_eq!(std::fs::read(&beside[0]).unwrap(), b"second, by a person\n");
}

#[test]
fn a_committed_file_whose_name_is_not_utf8_comes_back_after_a_checkout_put_it_back() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let name: &[u8] = b"na\xefve.cfg";
    std::fs::write(file(root, name), b"committed\n").unwrap();
    sh(root, "git add -A && git commit -qm latin1");
    let writer = Agent::new("editor", root);
    writer.bash("python3 -c \"open(b'na\\xefve.cfg', 'wb').write(b'edited by a script\\n')\"");
    let peer = Agent::new("reverter", root);
    peer.bash("git checkout -- .");
    assert_eq!(std::fs::read(file(root, name)).unwrap(), b"committed\n");
    collect_garbage(root);
    assert_recovers(
        root,
        &["."],
        &[(file(root, name), b"edited by a script\n".to_vec())],
    );
}

#[test]
fn a_name_near_the_systems_limit_comes_back_and_a_failure_does_not_stop_the_folder() {
    let repo = TestRepo::new();
    let agent = Agent::new("long-names", &repo.root);
    let long = format!("{}.txt", "n".repeat(251)); // 255 bytes: the most a name may have
    let first = agent.write(&format!("a/{long}"), b"LONG\n");
    let later = agent.write("a/zz.txt", b"ZZ\n");
    let blocked = agent.write("b/c.txt", b"C\n");
    sh(&repo.root, "rm -rf a");
    collect_garbage(&repo.root);
    // b/c.txt differs now, and a folder sits where its snapshot would go beside it: that one
    // file cannot be written.
    std::fs::write(&blocked, b"OTHER\n").unwrap();
    let listing = recover_json(&repo.root, &["--session", "long-names"]);
    let commit = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "b/c.txt")
        .map(|f| f["commit"].as_str().unwrap().to_owned())
        .unwrap();
    let beside_c = repo
        .root
        .join(format!("b/c.txt.recovered-{}", &commit[..7]));
    std::fs::create_dir_all(beside_c.join("in-the-way")).unwrap();
    let (code, out, err) = recover(&repo.root, &["."]);
    // Said, and the exit code says so, while the rest comes back.
    assert_eq!(code, 1, "{out}{err}");
    let mut shown = out.replace(&long, "[255-BYTE NAME]");
    for f in listing["files"].as_array().unwrap() {
        shown = shown.replace(f["at"].as_str().unwrap(), "[TIME]");
    }
    insta::assert_snapshot!("recover_folder_one_fails", snap::stable(&repo, &shown));
    assert_files(&[
        (first.clone(), b"LONG\n".to_vec()),
        (later, b"ZZ\n".to_vec()),
        (blocked, b"OTHER\n".to_vec()),
    ]);
    // A different current content of the long name: the snapshot goes beside it, the name
    // shortened to fit.
    std::fs::write(&first, b"NEWER\n").unwrap();
    let (code, out, err) = recover(&repo.root, &[first.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let beside: Vec<_> = std::fs::read_dir(repo.root.join("a"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains(".recovered-"))
        .collect();
    assert_eq!(beside.len(), 1, "{beside:?} {out}");
    assert!(beside[0].len() <= 255);
    assert_eq!(
        std::fs::read(repo.root.join("a").join(&beside[0])).unwrap(),
        b"LONG\n"
    );
    assert_eq!(std::fs::read(&first).unwrap(), b"NEWER\n");
}
