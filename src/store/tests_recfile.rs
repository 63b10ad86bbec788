//! Unit tests of record files: a torn or half-written record reads as its previous version
//! (or as absent), never as a record; concurrent readers of a record being rewritten always
//! read one of its versions.

use super::*;
use crate::host::Host;

fn session(n: u64, files: usize) -> Session {
    let mut s = Session::new("s1", Host::Claude, n);
    s.label = Some(format!("version {n}"));
    for i in 0..files {
        s.files.push(crate::store::FileTouch {
            key: crate::store::FileKey::new("/w", format!("src/f{i}.rs")),
            first: n,
            last: n,
        });
    }
    s
}

fn parse(found: Found) -> Option<Session> {
    match found {
        Found::Whole(b) => Some(serde_json::from_slice(&b).unwrap()),
        Found::Missing => None,
        Found::Torn(_) => panic!("torn"),
    }
}

#[test]
fn a_record_is_rewritten_in_place_and_keeps_its_previous_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.json");
    write(&path, None, &session(1, 3)).unwrap();
    let ino = || std::fs::metadata(&path).unwrap().ino();
    let first = ino();
    write(&path, Some(&session(1, 3)), &session(2, 40)).unwrap();
    write(&path, Some(&session(2, 40)), &session(3, 1)).unwrap();
    assert_eq!(ino(), first, "the same file, overwritten");
    assert_eq!(parse(read(&path).unwrap()), Some(session(3, 1)));
    // Shorter than the version before it: cut to its length, and still plain JSON.
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes, encode(&session(3, 1)));
    let plain: Session = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(plain, session(3, 1));
    let prev = std::fs::read(prev_path(&path)).unwrap();
    assert_eq!(prev, encode(&session(2, 40)));
}

#[test]
fn a_torn_record_reads_as_its_previous_version_and_never_as_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.json");
    let (old, new) = (session(1, 30), session(2, 31));
    write(&path, None, &old).unwrap();
    write(&path, Some(&old), &old).unwrap(); // the previous version kept
    let doc = encode(&new);
    let before = encode(&old);
    // Every way a writer killed mid-overwrite leaves it: the new document's first `n` bytes
    // over the old one, and (reader racing the writer) the old one's first `n` over the new.
    for n in (1..doc.len()).step_by(7) {
        let mut torn = before.clone();
        torn.resize(torn.len().max(doc.len()), b' ');
        torn[..n].copy_from_slice(&doc[..n]);
        std::fs::write(&path, &torn).unwrap();
        assert_eq!(parse(read(&path).unwrap()), Some(old.clone()), "cut at {n}");
        let mut torn = doc.clone();
        torn[..n.min(before.len())].copy_from_slice(&before[..n.min(before.len())]);
        std::fs::write(&path, &torn).unwrap();
        let got = parse(read(&path).unwrap()).unwrap();
        assert!(got == old || got == new, "cut at {n}");
    }
    // Written whole but not yet cut to length: the new version, the old tail ignored.
    let mut long = encode(&session(3, 1));
    long.extend_from_slice(&before[long.len()..]);
    std::fs::write(&path, &long).unwrap();
    assert_eq!(parse(read(&path).unwrap()), Some(session(3, 1)));
    // Torn with no whole previous version: torn, never parsed.
    std::fs::write(prev_path(&path), &doc[..doc.len() / 2]).unwrap();
    let mut torn = doc.clone();
    torn[HEADER + 3] ^= 1;
    std::fs::write(&path, &torn).unwrap();
    assert!(matches!(read(&path).unwrap(), Found::Torn(_)));
    // A record without a check (an older version's) is read as it is.
    std::fs::write(&path, serde_json::to_vec(&new).unwrap()).unwrap();
    assert_eq!(parse(read(&path).unwrap()), Some(new));
}

#[test]
fn readers_of_a_record_being_rewritten_read_one_of_its_versions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.json");
    // Records of a few pages, so that a read can meet an overwrite half done.
    let version = |n: u64| session(n, 40 + (n as usize % 7) * 20);
    write(&path, None, &version(0)).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let readers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut reads = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        let got = parse(read(&path).unwrap()).expect("never absent");
                        assert_eq!(got, version(got.first_seen), "a version, whole");
                        reads += 1;
                    }
                    reads
                })
            })
            .collect();
        for n in 1..2000 {
            write(&path, Some(&version(n - 1)), &version(n)).unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for r in readers {
            assert!(r.join().unwrap() > 0);
        }
    });
}

#[test]
fn a_planted_second_name_or_link_is_replaced_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.json");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, encode(&session(9, 1))).unwrap();
    std::fs::hard_link(&victim, &path).unwrap();
    std::fs::hard_link(&victim, prev_path(&path)).unwrap();
    write(&path, Some(&session(9, 1)), &session(10, 1)).unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), encode(&session(9, 1)));
    assert_eq!(parse(read(&path).unwrap()), Some(session(10, 1)));
    // The previous version's file: a link there is set aside before it is written.
    write(&path, Some(&session(10, 1)), &session(11, 1)).unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), encode(&session(9, 1)));
    std::fs::remove_file(prev_path(&path)).unwrap();
    std::os::unix::fs::symlink(&victim, prev_path(&path)).unwrap();
    write(&path, Some(&session(11, 1)), &session(12, 1)).unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), encode(&session(9, 1)));
    assert!(
        !std::fs::symlink_metadata(prev_path(&path))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(parse(read(&path).unwrap()), Some(session(12, 1)));
}
