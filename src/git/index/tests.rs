//! The index reader over a mapped file against the same reader through a window on the file,
//! on indexes git wrote in versions 2, 3 (extended flags) and 4 (prefix-compressed paths).

use super::*;
use crate::git::testing::git;

/// Every entry as a walk meets it: path, offset and decoded entry.
fn entries(source: &mut impl Source) -> Vec<(Vec<u8>, usize, Entry)> {
    let mut out = Vec::new();
    walk(source, |path, raw| {
        out.push((path.to_vec(), raw.at, raw.entry()?));
        Some(())
    })
    .expect("a walk of an index git wrote");
    out
}

#[test]
fn a_mapped_index_reads_as_the_file_does_in_every_version() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    for i in 0..300 {
        let rel = format!("d{}/sub/file-with-a-longer-name-{i}.txt", i % 7);
        std::fs::create_dir_all(root.join(&rel).parent().unwrap()).unwrap();
        std::fs::write(root.join(&rel), format!("{i}\n")).unwrap();
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "init"]);
    std::fs::write(root.join("later.txt"), "x\n").unwrap();
    // An intent-to-add entry needs the extended flags (version 3).
    git(root, &["add", "-N", "later.txt"]);
    let git_dir = root.join(".git");
    for version in ["2", "3", "4"] {
        if version == "2" {
            git(root, &["rm", "-q", "--cached", "later.txt"]);
        } else if version == "3" {
            git(root, &["add", "-N", "later.txt"]);
        }
        git(root, &["update-index", "--index-version", version]);
        let (map, stamp) = map(&git_dir).expect("mapped");
        let (mut window, window_stamp) = open(&git_dir, u64::MAX).unwrap();
        assert_eq!(stamp, window_stamp);
        let mut bytes = map.bytes();
        assert_eq!(Source::len(&bytes), window.len());
        assert_eq!(entry_count(&mut bytes), entry_count(&mut window));
        let from_map = entries(&mut bytes);
        assert_eq!(from_map, entries(&mut window), "version {version}");
        let count = if version == "2" { 300 } else { 301 };
        assert_eq!(from_map.len(), count, "version {version}");
        // Where a walk said an entry starts, the entry is read again the same.
        for (path, at, entry) in &from_map {
            assert_eq!(entry_at(map.bytes(), *at).as_ref(), Some(entry), "{path:?}");
        }
        let added = from_map.iter().find(|(p, ..)| p == b"later.txt");
        assert_eq!(
            added.map(|(.., e)| e.special),
            (version != "2").then_some(true)
        );
    }
}

#[test]
fn no_index_or_a_truncated_one_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    assert!(map(dir.path()).is_none(), "no index file");
    std::fs::write(dir.path().join("index"), b"DIRC").unwrap();
    assert!(map(dir.path()).is_none(), "shorter than its checksum");
    std::fs::write(
        dir.path().join("index"),
        [b"DIRC".as_slice(), &[0; 28]].concat(),
    )
    .unwrap();
    let (map, _) = map(dir.path()).unwrap();
    let mut bytes = map.bytes();
    // A header claiming version 0 is not one this reader takes.
    assert!(walk(&mut bytes, |_, _| Some(())).is_none());
    assert!(entry_at(map.bytes(), 0).is_none(), "no whole entry there");
}

#[test]
fn a_slice_gives_what_it_has_and_nothing_past_its_end() {
    let data: &[u8] = b"0123456789";
    let mut source = data;
    assert_eq!(Source::get(&mut source, 2, 3), Some(&b"234"[..]));
    assert_eq!(
        Source::get(&mut source, 8, 10),
        Some(&b"89"[..]),
        "fewer at the end"
    );
    assert_eq!(Source::get(&mut source, 10, 1), Some(&b""[..]));
    assert_eq!(Source::get(&mut source, 11, 1), None);
    assert_eq!(Source::get(&mut source, usize::MAX, 2), None);
}

/// Every entry a walk hands over, or `None` where the walk refused the bytes.
type Walk = Option<(Vec<(Vec<u8>, usize, Option<Entry>)>, Option<git2::Oid>)>;

fn walk_all(source: &mut impl Source) -> Walk {
    let mut out = Vec::new();
    let tree = walk(source, |path, raw| {
        out.push((path.to_vec(), raw.at, raw.entry()));
        Some(())
    })?;
    Some((out, tree))
}

proptest::proptest! {
    /// Whatever the bytes (an index is only as good as the disk and the tools that wrote it):
    /// no panic, and the mapped reader and the window reader agree on all of it.
    #[test]
    fn any_bytes_read_the_same_from_memory_and_through_a_window(
        version in 2u32..=4,
        count in 0u32..6,
        body in proptest::collection::vec(proptest::num::u8::ANY, 0..700),
        offsets in proptest::collection::vec(0usize..800, 0..8),
    ) {
        let mut bytes = b"DIRC".to_vec();
        bytes.extend_from_slice(&version.to_be_bytes());
        bytes.extend_from_slice(&count.to_be_bytes());
        bytes.extend_from_slice(&body);
        let mut slice = bytes.as_slice();
        let from_memory = walk_all(&mut slice);
        let len = bytes.len() as u64;
        let mut window = Window::new(std::io::Cursor::new(bytes.clone()), len);
        proptest::prop_assert_eq!(&from_memory, &walk_all(&mut window));
        for at in offsets {
            let _ = entry_at(&bytes, at);
        }
    }
}

/// A small index git wrote (version 4 when asked), made once for the mutation test.
fn real_index(v4: bool) -> &'static [u8] {
    use std::sync::OnceLock;
    static INDEXES: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    let (v2, v4_bytes) = INDEXES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        for rel in ["a.txt", "d/b.rs", "d/e/c.md", "z"] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), rel).unwrap();
        }
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "init"]);
        let v2 = std::fs::read(root.join(".git/index")).unwrap();
        git(root, &["update-index", "--index-version", "4"]);
        (v2, std::fs::read(root.join(".git/index")).unwrap())
    });
    if v4 { v4_bytes } else { v2 }
}

proptest::proptest! {
    /// A real index with bytes changed or cut short: no panic, and both readers agree.
    #[test]
    fn a_damaged_real_index_reads_the_same_from_memory_and_through_a_window(
        v4 in proptest::bool::ANY,
        changes in proptest::collection::vec((0usize..2000, proptest::num::u8::ANY), 0..4),
        cut in 0usize..2000,
    ) {
        let real = real_index(v4);
        // Less the trailing checksum, as `map` and `open` hand it over.
        let mut bytes = real[..real.len() - 20].to_vec();
        let whole = changes.is_empty() && cut >= bytes.len();
        for (at, byte) in changes {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
        bytes.truncate(cut.max(12));
        let mut slice = bytes.as_slice();
        let from_memory = walk_all(&mut slice);
        if whole {
            proptest::prop_assert_eq!(from_memory.as_ref().map(|(e, _)| e.len()), Some(4));
        }
        let len = bytes.len() as u64;
        let mut window = Window::new(std::io::Cursor::new(bytes.clone()), len);
        proptest::prop_assert_eq!(&from_memory, &walk_all(&mut window));
    }
}
