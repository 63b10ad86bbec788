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

#[test]
fn a_file_line_reads_the_same_in_one_pass_as_split_and_parsed() {
    let lines = [
        "id\t1\t2\t3\t4\t33188\tab12\t-\tsrc/a.rs",
        "id\t0\t-5\t-1700000000123456789\t9999999999999999999\t0\t-\ta FIFO\tx\\ty",
        // Wider than an `i64` of nanoseconds, a sign, 20 digits: the general way reads them.
        "id\t1\t170141183460469231731687303715884105727\t-99999999999999999999\t18446744073709551615\t5\t-\t-\tp",
        "id\t+1\t2\t3\t4\t5\t-\t-\tp",
        "id\t12345678901234567890\t2\t3\t4\t5\t-\t-\tp",
        "id\t1\t2\t3\t4\t4294967296\t-\t-\tp",
        "id\t1\t-\t3\t4\t5\t-\t-\tp",
        "id\t\t2\t3\t4\t5\t-\t-\tp",
        "id\t1\t2\t3\t4\t5\t-\t-\tp\tq",
        "id\t1\t2\t3\t4\t5\t-\t-",
        "id\t1x\t2\t3\t4\t5\t-\t-\tp",
    ];
    for line in lines {
        let quick = quick_file(line);
        let general = general_file(line);
        assert!(quick.is_none() || quick == general, "{line}");
        let read = file_of(line, |_| Some(0)).map(|(_, f)| (f.stamp, f.path));
        assert_eq!(read, general.map(|g| (g.1, g.4)), "{line}");
    }
    assert!(quick_file(lines[0]).is_some() && quick_file(lines[1]).is_some());
    assert_eq!(
        general_file(lines[2]).map(|g| (g.1.mtime, g.1.ctime)),
        Some((i128::MAX, -99_999_999_999_999_999_999))
    );
    assert_eq!(general_file(lines[3]).map(|g| g.1.len), Some(1));
    assert_eq!(
        general_file(lines[4]).map(|g| g.1.len),
        Some(12_345_678_901_234_567_890)
    );
    for bad in &lines[5..] {
        assert_eq!(
            file_of(bad, |_| Some(0)).map(|(_, f)| f.path),
            None,
            "{bad}"
        );
    }
    assert!(file_of(lines[0], |_| None).is_none());
}

#[test]
fn tabs_are_found_eight_bytes_at_a_step_exactly() {
    // Every byte value around a tab, at every place of a word and past it.
    for len in 0..20 {
        for place in 0..=len {
            for other in [0u8, 1, 8, 0x0a, 0x89, 0xff, b'0'] {
                let mut bytes = vec![other; len];
                if place < len {
                    bytes[place] = b'\t';
                }
                let want = bytes.iter().position(|&b| b == b'\t');
                assert_eq!(fields::tab_in(&bytes), want, "{bytes:?}");
            }
        }
    }
}
