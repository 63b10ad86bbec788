//! A repository linked into the one a session works in (`vendor -> ../lib`, a package linked in
//! by hand): a program run in A that writes through the link, by a path no word of its line
//! names, has what it wrote kept in the linked repository's snapshots, so a person's `reset
//! --hard` and `clean` there, then gc, lose nothing for good. Links to a file or to a folder
//! inside a repository are not followed, and a link to A's own folder changes nothing.

mod common;
mod recover_support;

use std::os::unix::fs::symlink;

use common::*;
use recover_support::*;

/// The script writes through `link` by a name it builds itself: a new file and a tracked one
/// rewritten.
fn script_through(link: &str) -> String {
    format!(
        "python3 -c \"import pathlib; p = pathlib.Path('{}' + '{}/src'); \
         (p / 'new.rs').write_text('made through the link\\n'); \
         (p / 'lib.rs').write_text('pub fn vendored() {{}}\\n')\"",
        &link[..1],
        &link[1..]
    )
}

#[test]
fn a_script_writing_through_a_link_to_another_repository_is_kept_there() {
    let a = TestRepo::new();
    let b = TestRepo::new();
    symlink(&b.root, a.root.join("vendor")).unwrap();
    let agent = Agent::started("linker", &a.root);
    agent.bash(&script_through("vendor"));
    let made = [
        (
            b.root.join("src/new.rs"),
            b"made through the link\n".to_vec(),
        ),
        (
            b.root.join("src/lib.rs"),
            b"pub fn vendored() {}\n".to_vec(),
        ),
    ];
    assert_files(&made);
    // A person in B, no hook seeing it.
    sh(&b.root, "git reset -q --hard && git clean -qfdx");
    collect_garbage(&b.root);
    collect_garbage(&a.root);
    assert!(!made[0].0.exists());
    for (file, bytes) in &made {
        assert!(has_blob(&b.root, bytes), "{} not kept in B", file.display());
    }
    let listing = recover_json(&b.root, &[]);
    let paths = listed_paths(&listing);
    assert!(
        paths.contains(&"src/new.rs") && paths.contains(&"src/lib.rs"),
        "{listing}"
    );
    assert_recovers(&b.root, &["src"], &made);
}

#[test]
fn a_link_in_a_subfolder_the_line_runs_in_is_followed_too() {
    let a = TestRepo::new();
    let b = TestRepo::new();
    std::fs::create_dir_all(a.root.join("deps")).unwrap();
    symlink(&b.root, a.root.join("deps/lib")).unwrap();
    let agent = Agent::started("linker-sub", &a.root);
    agent.bash(&format!("cd deps && {}", script_through("lib")));
    let new = (
        b.root.join("src/new.rs"),
        b"made through the link\n".to_vec(),
    );
    sh(&b.root, "git clean -qfdx");
    collect_garbage(&b.root);
    assert!(has_blob(&b.root, &new.1), "not kept in B");
    assert_recovers(&b.root, &["src/new.rs"], std::slice::from_ref(&new));
}

#[test]
fn links_to_no_repository_root_and_to_itself_change_nothing() {
    let a = TestRepo::new();
    let b = TestRepo::new();
    // A folder inside B, a file of B, and A itself: none is a repository to scan.
    symlink(b.root.join("src"), a.root.join("bsrc")).unwrap();
    symlink(b.root.join("README.md"), a.root.join("breadme")).unwrap();
    symlink(&a.root, a.root.join("self")).unwrap();
    let agent = Agent::started("linker-none", &a.root);
    agent.bash_silent("python3 -c \"open('out.txt', 'w').write('mine\\n')\"");
    assert!(
        snapshot_refs(&b.root).is_empty(),
        "B got snapshots: {}",
        snapshot_refs(&b.root)
    );
    // What the line made in A is kept as ever.
    assert!(has_blob(&a.root, b"mine\n"));
}
