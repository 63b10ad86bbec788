//! What ties a process to a worktree although its directory is elsewhere (a job that ran
//! `cd /` or `setsid sh -c 'cd /tmp; ...'`): the directories its environment was given when it
//! was started (`PWD=`, `OLDPWD=`: the shell that started it sat there, and `cd` changes only the
//! shell's copy), a word of its argv that names a path in the worktree, or a file it holds open
//! there (a script its shell reads line by line). Plain functions on what the kernel returns.

use std::path::{Path, PathBuf};

/// The directories `PWD=` and `OLDPWD=` of a NUL-separated environment block name.
pub(crate) fn environ_dirs(block: &[u8]) -> Vec<PathBuf> {
    block
        .split(|b| *b == 0)
        .filter_map(|kv| {
            let v = kv
                .strip_prefix(b"PWD=")
                .or_else(|| kv.strip_prefix(b"OLDPWD="))?;
            (v.first() == Some(&b'/')).then(|| PathBuf::from(String::from_utf8_lossy(v).as_ref()))
        })
        .collect()
}

/// The index of the first of `roots` that `path` lies in.
pub(crate) fn root_of(path: &Path, roots: &[PathBuf]) -> Option<usize> {
    roots.iter().position(|r| path.starts_with(r))
}

/// The index of the first of `roots` that a word of `argv` names a path in: the root's text
/// followed by its end, `/`, or a character no path word goes on with (a quote, a space, `;`),
/// anywhere in the word (`sh -c 'cd /; rm -rf /abs/repo/src'`).
pub(crate) fn named_root(argv: &[String], roots: &[PathBuf]) -> Option<usize> {
    roots.iter().position(|r| {
        let Some(root) = r.to_str().filter(|s| s.len() > 1) else {
            return false;
        };
        argv.iter().any(|word| {
            word.match_indices(root).any(|(at, _)| {
                let before = word[..at].chars().next_back();
                let after = word[at + root.len()..].chars().next();
                before.is_none_or(|c| !(c.is_alphanumeric() || "._-~".contains(c)))
                    && after
                        .is_none_or(|c| c == '/' || !(c.is_alphanumeric() || "._-~".contains(c)))
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directories_an_environment_was_started_in() {
        let block = b"HOME=/root\0PWD=/w/repo\0OLDPWD=/w/repo/src\0XPWD=/x\0PWD=rel\0";
        assert_eq!(
            environ_dirs(block),
            [PathBuf::from("/w/repo"), PathBuf::from("/w/repo/src")]
        );
        assert!(environ_dirs(b"").is_empty());
    }

    #[test]
    fn a_word_names_a_root_only_as_a_whole_path() {
        let roots = [PathBuf::from("/w/repo"), PathBuf::from("/w/lane")];
        let argv = |s: &str| vec!["sh".to_owned(), "-c".to_owned(), s.to_owned()];
        assert_eq!(
            named_root(&argv("cd /; rm -rf /w/repo/src"), &roots),
            Some(0)
        );
        assert_eq!(
            named_root(&argv("shutil.rmtree(\"/w/lane\")"), &roots),
            Some(1)
        );
        assert_eq!(named_root(&argv("cd /w/lane;x"), &roots), Some(1));
        assert_eq!(named_root(&argv("rm -rf /w/repo2 /x/w/repo"), &roots), None);
        assert_eq!(named_root(&argv("ls /w"), &roots), None);
        assert_eq!(root_of(Path::new("/w/lane/a"), &roots), Some(1));
        assert_eq!(root_of(Path::new("/w/lanes"), &roots), None);
    }
}
