//! Tests of the snapshot state log: round trips, the last line winning, reads in place.

use super::*;

fn watched(root: &str, path: &str, len: u64) -> Watched {
    Watched {
        worktree: root.into(),
        path: path.into(),
        stamp: Stamp {
            len,
            mtime: -5,
            ctime: 1_700_000_000_123_456_789,
            ino: 42,
            mode: 0o100644,
        },
        skipped: None,
        blob: Some("ab12".into()),
    }
}

#[test]
fn odd_names_round_trip_and_the_last_line_wins() {
    let mut state = SnapState {
        session: "s\t1\\x".into(),
        host: "claude".into(),
        commit: Some("c0ffee".into()),
        at: 9,
        files: vec![
            watched("/w/a\tb", "x\ny.rs", 1),
            watched("/w/a\tb", "x\\y\r", 2),
        ],
    };
    state.files[1].skipped = Some("a FIFO (never read)".into());
    state.files[1].blob = None;
    let text = encode(&state, |p| format!("id{}", p.as_os_str().len()));
    assert_eq!(decode(&text), Some((state.clone(), 5)));
    // An appended line about a file replaces its entry and moves it last.
    let mut more = text.clone();
    file_line(&mut more, "id6", &watched("/w/a\tb", "x\ny.rs", 7));
    let (back, lines) = decode(&more).unwrap();
    assert_eq!(lines, 6);
    assert_eq!(back.files.len(), 2);
    assert_eq!(
        (back.files[1].path.as_str(), back.files[1].stamp.len),
        ("x\ny.rs", 7)
    );
    // The light read of the newest snapshot: the session, the commit, the roots in use.
    let (session, commit, roots) = heads(&more).unwrap();
    assert_eq!(owned(session), "s\t1\\x");
    assert_eq!(commit, Some("c0ffee"));
    assert_eq!(
        roots.iter().map(|r| owned(r)).collect::<Vec<_>>(),
        ["/w/a\tb"]
    );
    let mut unused = more.clone();
    worktree_line(&mut unused, "id9", "/elsewhere");
    assert_eq!(heads(&unused).unwrap().2.len(), 1);
    assert_eq!(heads("c\tabc\t1\n"), None);
    // A torn last line, an unknown line, a file of an unknown worktree: left out.
    more.push_str("q\tlater format\nf\tnope\t1\t2\t3\t4\t5\t-\t-\tz\n");
    more.push_str("f\tid6\t1\t2");
    assert_eq!(decode(&more).unwrap().0, back);
    assert_eq!(decode("c\tabc\t1\n"), None);
    // One file's newest line is found alone, whatever its name holds; a torn line, another
    // worktree's or a path that only ends the same are not it.
    let root = std::path::Path::new("/w/a\tb");
    let found = last_file(&more, "id6", root, "x\ny.rs").unwrap();
    assert_eq!((found.stamp.len, found.worktree.as_path()), (7, root));
    assert_eq!(
        last_file(&more, "id6", root, "x\\y\r"),
        Some(back.files[0].clone())
    );
    assert_eq!(last_file(&more, "id6", root, "y.rs"), None);
    assert_eq!(last_file(&more, "id7", root, "x\ny.rs"), None);
    assert_eq!(last_file(&more, "id6", root, "z"), None);
    assert_eq!(
        last_file("f\tid6\t1\t2\t3\t4\t5\t-\t-\tq", "id6", root, "q"),
        None
    );
}
