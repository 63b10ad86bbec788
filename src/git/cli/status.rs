//! `git status --porcelain=v2 -z` read into [`FileState`]s: the one reader of git's status
//! output (the guard's git view and the fallback for unreadable formats both use it).

use crate::git::FileState;

/// What one `git status --porcelain=v2 -z [--branch]` output says: the changed paths (in git's
/// order) and, with `--branch`, HEAD's commit (`None` on an unborn branch).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// Every changed, staged, unmerged or untracked path.
    pub(crate) files: Vec<FileState>,
    /// `# branch.oid`, when given and not `(initial)`.
    pub(crate) head: Option<String>,
}

/// Parse `git status --porcelain=v2 -z` output. Ignored entries (`!`) are left out.
pub(crate) fn parse_status(out: &[u8]) -> Parsed {
    let mut parsed = Parsed::default();
    let mut records = out.split(|b| *b == 0);
    while let Some(record) = records.next() {
        let line = String::from_utf8_lossy(record);
        if let Some(oid) = line.strip_prefix("# branch.oid ") {
            parsed.head = (oid != "(initial)").then(|| oid.to_owned());
            continue;
        }
        let (kind, rest) = line.split_once(' ').unwrap_or((&line, ""));
        let state = |xy: &str, path: &str| {
            let mut c = xy.chars().map(|c| if c == '.' { ' ' } else { c });
            FileState {
                path: path.to_owned(),
                index: c.next().unwrap_or(' '),
                worktree: c.next().unwrap_or(' '),
            }
        };
        match kind {
            "?" => parsed.files.push(FileState {
                path: rest.to_owned(),
                index: '?',
                worktree: '?',
            }),
            "1" => {
                let f: Vec<&str> = rest.splitn(8, ' ').collect();
                if let [xy, .., path] = f.as_slice()
                    && f.len() == 8
                {
                    parsed.files.push(state(xy, path));
                }
            }
            "2" => {
                let f: Vec<&str> = rest.splitn(9, ' ').collect();
                if let [xy, .., path] = f.as_slice()
                    && f.len() == 9
                {
                    parsed.files.push(state(xy, path));
                }
                // The original path is the next record.
                records.next();
            }
            "u" => {
                let f: Vec<&str> = rest.splitn(10, ' ').collect();
                if let Some(path) = f.get(9) {
                    parsed.files.push(state("UU", path));
                }
            }
            _ => {}
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_record_reads_as_git_status_shows_it() {
        let out = b"# branch.oid 0123abcd\0# branch.head main\0\
1 .M N... 100644 100644 100644 aa aa a b.txt\0\
1 A. N... 000000 100644 100644 00 bb new file.txt\0\
2 R. N... 100644 100644 100644 cc cc R100 moved.txt\0old.txt\0\
u UU N... 100644 100644 100644 100644 d1 d2 d3 both.txt\0\
? un tracked\0! ignored.log\0";
        let p = parse_status(out);
        assert_eq!(p.head.as_deref(), Some("0123abcd"));
        let lines: Vec<String> = p.files.iter().map(FileState::porcelain).collect();
        assert_eq!(
            lines,
            [
                " M a b.txt",
                "A  new file.txt",
                "R  moved.txt",
                "UU both.txt",
                "?? un tracked"
            ]
        );
        assert_eq!(parse_status(b"# branch.oid (initial)\0").head, None);
    }
}
