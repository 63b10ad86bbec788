//! What a Codex `apply_patch` patch makes of each file it names: `*** Delete File:` and a moved
//! file's old path leave nothing, `*** Add File:` the added lines, `*** Update File:` each hunk's
//! old lines (context and `-`) replaced by its new ones (context and `+`).

use std::path::PathBuf;

use super::EditChange;

/// The change of every file the patch names, in order (a file named twice: its first).
pub(super) fn changes(patch: &str) -> Vec<(PathBuf, EditChange)> {
    let mut out: Vec<(PathBuf, EditChange)> = Vec::new();
    let mut current: Option<(PathBuf, File)> = None;
    let finish = |file: Option<(PathBuf, File)>, out: &mut Vec<(PathBuf, EditChange)>| {
        if let Some((path, file)) = file
            && !out.iter().any(|(p, _)| *p == path)
        {
            out.push((path, file.change()));
        }
    };
    for line in patch.lines() {
        let header = line.trim();
        let named = |marker: &str| {
            header
                .strip_prefix(marker)
                .map(str::trim)
                .filter(|p| !p.is_empty() && !p.contains('\0'))
                .map(PathBuf::from)
        };
        if let Some(path) = named("*** Delete File:") {
            finish(current.take(), &mut out);
            current = Some((path, File::Deleted));
        } else if let Some(path) = named("*** Add File:") {
            finish(current.take(), &mut out);
            current = Some((path, File::Added(Vec::new())));
        } else if let Some(path) = named("*** Update File:") {
            finish(current.take(), &mut out);
            current = Some((path, File::Updated(Vec::new())));
        } else if let Some(to) = named("*** Move to:") {
            // The old path is left with nothing; what the new one holds is not told here.
            if let Some((from, _)) = current.take() {
                finish(Some((from, File::Deleted)), &mut out);
            }
            current = Some((to, File::Unknown));
        } else if header.starts_with("*** ") {
            finish(current.take(), &mut out);
        } else if let Some((_, file)) = current.as_mut() {
            file.line(line);
        }
    }
    finish(current, &mut out);
    out
}

/// One file of a patch as it is read.
enum File {
    Deleted,
    Added(Vec<String>),
    /// Hunks, each `(old lines, new lines)`.
    Updated(Vec<(Vec<String>, Vec<String>)>),
    Unknown,
}

impl File {
    fn line(&mut self, line: &str) {
        match self {
            File::Added(lines) => {
                if let Some(text) = line.strip_prefix('+') {
                    lines.push(text.to_owned());
                }
            }
            File::Updated(hunks) => {
                if line.starts_with("@@") || hunks.is_empty() {
                    hunks.push((Vec::new(), Vec::new()));
                    if line.starts_with("@@") {
                        return;
                    }
                }
                let Some((old, new)) = hunks.last_mut() else {
                    return;
                };
                match line.split_at_checked(1) {
                    Some(("-", text)) => old.push(text.to_owned()),
                    Some(("+", text)) => new.push(text.to_owned()),
                    Some((" ", text)) => {
                        old.push(text.to_owned());
                        new.push(text.to_owned());
                    }
                    // An empty context line, as some writers leave it.
                    None => {
                        old.push(String::new());
                        new.push(String::new());
                    }
                    _ => {}
                }
            }
            File::Deleted | File::Unknown => {}
        }
    }

    fn change(self) -> EditChange {
        match self {
            File::Deleted => EditChange::Delete,
            File::Added(lines) => {
                EditChange::Whole(lines.iter().map(|l| format!("{l}\n")).collect())
            }
            File::Updated(hunks) => EditChange::Replace(
                hunks
                    .into_iter()
                    .filter(|(old, new)| !(old.is_empty() && new.is_empty()))
                    .map(|(old, new)| (old.join("\n"), new.join("\n"), false))
                    .collect(),
            ),
            File::Unknown => EditChange::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_gets_what_the_patch_makes_of_it() {
        let patch = "*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** Add File: a.txt\n+one\n+two\n\
                     *** Update File: b.json\n@@ {\n   \"hooks\": {\n-    \"x\": 1\n+    \"y\": 2\n   }\n\
                     *** Update File: c.txt\n*** Move to: d.txt\n@@\n-a\n+b\n*** End Patch\n";
        let got = changes(patch);
        let path = |p: &str| PathBuf::from(p);
        assert_eq!(
            got,
            vec![
                (path(".codex/hooks.json"), EditChange::Delete),
                (path("a.txt"), EditChange::Whole("one\ntwo\n".into())),
                (
                    path("b.json"),
                    EditChange::Replace(vec![(
                        "  \"hooks\": {\n    \"x\": 1\n  }".into(),
                        "  \"hooks\": {\n    \"y\": 2\n  }".into(),
                        false
                    )])
                ),
                (path("c.txt"), EditChange::Delete),
                (path("d.txt"), EditChange::Unknown),
            ]
        );
        let after = got[2].1.apply("{\n  \"hooks\": {\n    \"x\": 1\n  }\n}\n");
        assert_eq!(
            after.as_deref(),
            Some("{\n  \"hooks\": {\n    \"y\": 2\n  }\n}\n")
        );
    }

    #[test]
    fn hostile_patches_are_data() {
        assert!(changes("").is_empty());
        assert!(changes("*** Update File:\n*** Delete File: \0x\n").is_empty());
        let got = changes("*** Update File: x\n-\u{1b}[2J\n+\n");
        assert_eq!(got.len(), 1);
    }
}
