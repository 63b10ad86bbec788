//! Which files a shell command writes, as far as its words show: redirections, `sed -i`,
//! `perl -i`, `tee`, `mv`, `cp` (a folder copied with `-r`: the files under it), `rm`, `touch`,
//! `truncate`, `dd of=`, the programs of [`super::writers`], and git's own file writers (`git mv`,
//! `git rm`, `git checkout -- FILE`, `git restore FILE`). No file system, but for the script
//! files and input an editor is given (read through [`crate::shell`], bounded).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::shell::{SimpleCommand, Unknown};

/// A file a command will write, relative to the directory the command runs in (or absolute).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written {
    /// The directory the command runs in.
    pub(crate) cwd: PathBuf,
    /// The path as written.
    pub(crate) path: PathBuf,
    /// Set when `path` is a folder that gets every file under this folder (as written), at the
    /// same place below it: `cp -r SRC DEST` (SRC), `find DIR -exec truncate` (DIR itself).
    pub(crate) from: Option<PathBuf>,
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Operands: the words that are not options (everything after `--` counts); `valued` options
/// take the next word as their value.
fn operands<'a>(args: &'a [String], valued: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = false;
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if rest || !a.starts_with('-') || a == "-" {
            out.push(a.as_str());
        } else if a == "--" {
            rest = true;
        } else if valued.contains(&a.as_str()) {
            iter.next();
        }
    }
    out
}

/// Files edited in place by `sed -i` or `perl -i`: the operands after the script.
fn in_place(args: &[String], perl: bool) -> Vec<&str> {
    let mut edits = false;
    let mut script_given = false;
    let mut files = Vec::new();
    let mut iter = args.iter().peekable();
    while let Some(a) = iter.next() {
        if a == "--in-place" || a.starts_with("--in-place=") {
            edits = true;
        } else if a == "-e" || a == "-f" || a == "--expression" || a == "--file" {
            script_given = true;
            iter.next();
        } else if let Some(flags) = a.strip_prefix('-').filter(|f| !f.starts_with('-')) {
            if flags.starts_with('i') || flags.chars().take_while(|c| *c != 'e').any(|c| c == 'i') {
                edits = true;
            }
            if perl && flags.ends_with('e') {
                script_given = true;
                iter.next();
            }
        } else if !script_given && !a.starts_with('-') {
            script_given = true; // the first operand is the script
        } else if !a.starts_with('-') {
            files.push(a.as_str());
        }
    }
    if edits { files } else { Vec::new() }
}

/// `patch -o FILE` / `-oFILE` / `--output[=]FILE`: the file it writes its result to.
fn patch_output(args: &[String]) -> Option<&str> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-o" || a == "--output" {
            return it.next().map(String::as_str);
        }
        if let Some(v) = a.strip_prefix("--output=") {
            return Some(v);
        }
        if let Some(v) = a.strip_prefix("-o").filter(|v| !v.is_empty()) {
            return Some(v);
        }
    }
    None
}

/// `cp -r`/`-a`/`-R`/`--recursive`/`--archive`: each source folder with the destination.
fn copied_trees(args: &[String]) -> Vec<(&str, &str)> {
    let recursive = args.iter().any(|a| {
        matches!(a.as_str(), "--recursive" | "--archive")
            || (!a.starts_with("--") && a.starts_with('-') && a.contains(['r', 'R', 'a']))
    });
    let ops = operands(args, &["-t", "--target-directory", "-S", "--suffix"]);
    match ops.split_last() {
        Some((dest, sources)) if recursive => sources.iter().map(|s| (*s, *dest)).collect(),
        _ => Vec::new(),
    }
}

/// The files `mv` (its sources and what it writes), `cp` or `ln` (what it writes) reach, by the words:
/// with `-t DIR` (any spelling, [`super::guard::options::copier_args`]) each source's name in
/// DIR, else the last operand.
fn moved_or_copied(name: &str, args: &[String]) -> Vec<String> {
    let norm = super::guard::options::copier_args(name, args).unwrap_or_default();
    let mut dir: Option<&str> = None;
    let mut it = norm.iter();
    let mut words = Vec::new();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" => {
                words.extend(it.by_ref());
                break;
            }
            "-t" | "--target-directory" => dir = it.next().map(String::as_str),
            "-S" | "--suffix" => {
                it.next();
            }
            w if w.starts_with('-') && w != "-" => {}
            _ => words.push(a),
        }
    }
    let mut out: Vec<String> = Vec::new();
    if name == "mv" {
        out.extend(words.iter().map(|w| (*w).clone()));
    }
    match dir {
        Some(d) => out.extend(
            words
                .iter()
                .map(|w| format!("{}/{}", d.trim_end_matches('/'), basename(w))),
        ),
        // `ln TARGET` makes its link in the current folder.
        None if name == "ln" && words.len() == 1 => out.push(basename(words[0]).to_owned()),
        None if name != "mv" => out.extend(words.last().map(|w| (*w).clone())),
        None => {}
    }
    out
}

/// What one simple command writes: files, and (folder, source) pairs.
fn writes_of(cmd: &SimpleCommand) -> (Vec<Cow<'_, str>>, Vec<(&str, &str)>) {
    let mut trees = Vec::new();
    let mut out: Vec<Cow<'_, str>> = cmd
        .redirects
        .iter()
        .filter(|r| !r.expands)
        .map(|r| r.target.as_str())
        .filter(|t| !t.starts_with("/dev/") && !t.is_empty())
        .map(Cow::Borrowed)
        .collect();
    let Some(first) = cmd.argv.first() else {
        return (out, trees);
    };
    let args = &cmd.argv[1..];
    let mut plain: Vec<&str> = Vec::new();
    let out_ref = &mut plain;
    match basename(first) {
        "sed" | "gsed" => {
            out_ref.extend(in_place(args, false));
            out.extend(super::sed_files::written(args).into_iter().map(Cow::Owned));
        }
        "perl" | "ruby" => out_ref.extend(in_place(args, true)),
        "patch" => out_ref.extend(patch_output(args)),
        // mmv's family: TO, when it names one file.
        "mmv" | "mcp" | "mad" | "mln" => out_ref.extend(
            operands(args, &[])
                .get(1)
                .filter(|t| !t.contains(['#', '*', '?', '[', ';'])),
        ),
        "tee" | "touch" | "rm" | "shred" | "sponge" | "dos2unix" | "unix2dos" | "mac2unix"
        | "unix2mac" => out_ref.extend(operands(args, &[])),
        "fallocate" => out_ref.extend(operands(args, &["-o", "--offset", "-l", "--length"])),
        "truncate" => out_ref.extend(operands(args, &["-s", "--size", "-r", "--reference"])),
        name @ ("mv" | "cp" | "ln") => {
            out.extend(moved_or_copied(name, args).into_iter().map(Cow::Owned));
            if name == "cp" {
                trees = copied_trees(args);
            }
        }
        "dd" => out_ref.extend(args.iter().filter_map(|a| a.strip_prefix("of="))),
        "git" => out_ref.extend(git_writes(args)),
        name if crate::shell::is_vim(name) => {
            out.extend(
                cmd.ex(&cmd.argv)
                    .into_iter()
                    .flat_map(|e| e.writes)
                    .map(Cow::Owned),
            );
        }
        name => {
            let w = super::writers::writes(name, args);
            out.extend(w.files);
            trees.extend(w.trees.into_iter().map(|t| (t, t)));
        }
    }
    out.extend(plain.into_iter().map(Cow::Borrowed));
    (out, trees)
}

/// Files written by `git mv`, `git rm`, `git checkout -- FILE...` and `git restore FILE...`.
fn git_writes(args: &[String]) -> Vec<&str> {
    // Skip git's global options (with their values).
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        i += if matches!(args[i].as_str(), "-C" | "-c" | "--git-dir" | "--work-tree") {
            2
        } else {
            1
        };
    }
    let Some(sub) = args.get(i) else {
        return Vec::new();
    };
    let rest = &args[i + 1..];
    match sub.as_str() {
        "mv" | "rm" => operands(rest, &[]),
        "restore" => {
            let mut out = Vec::new();
            let mut it = rest.iter();
            while let Some(a) = it.next() {
                if a == "-s" || a == "--source" {
                    it.next();
                } else if !a.starts_with('-') {
                    out.push(a.as_str());
                }
            }
            out
        }
        "checkout" => match rest.iter().position(|a| a == "--") {
            Some(p) => rest[p + 1..].iter().map(String::as_str).collect(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Every file the parsed command line writes, as far as its words show. Commands whose
/// directory is unknown are skipped (their paths could be anywhere).
pub(crate) fn shell_writes(cmds: &[SimpleCommand]) -> Vec<Written> {
    let mut out: Vec<Written> = Vec::new();
    for cmd in cmds.iter().filter(|c| c.cwd_known) {
        // A path with an expansion in it (`f$i.txt`, `out-$(date).log`) names a file known only
        // when the command runs: not that literal name (the scan after the command finds it).
        let expands = matches!(
            cmd.unknown,
            Some(Unknown::Variable | Unknown::CommandSubstitution)
        );
        let (files, trees) = writes_of(cmd);
        let found = files
            .iter()
            .map(|f| (f.as_ref(), None))
            .chain(trees.into_iter().map(|(src, dest)| (dest, Some(src))));
        for (path, from) in found {
            if expands
                && (path.contains(['$', '`']) || from.is_some_and(|f| f.contains(['$', '`'])))
            {
                continue;
            }
            let w = Written {
                cwd: cmd.cwd.clone(),
                path: Path::new(path).to_path_buf(),
                from: from.map(PathBuf::from),
            };
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(line: &str) -> Vec<String> {
        let cmds = crate::shell::parse(line, Path::new("/nonexistent-cwd")).unwrap();
        shell_writes(&cmds)
            .into_iter()
            .map(|w| match w.from {
                Some(from) => format!("{}<-{}", w.path.display(), from.display()),
                None => w.path.to_string_lossy().into_owned(),
            })
            .collect()
    }

    #[test]
    fn writes_are_found_in_every_form() {
        let cases: &[(&str, &[&str])] = &[
            (
                "sed -i 's/a/b/' src/a.rs src/b.rs",
                &["src/a.rs", "src/b.rs"],
            ),
            ("sed -i.bak -e 's/a/b/' x.rs", &["x.rs"]),
            ("sed -Ei 's/a/b/' x.rs", &["x.rs"]),
            ("sed 's/a/b/' x.rs", &[]),
            ("sed -n 'w notes.txt' x.rs", &["notes.txt"]),
            ("sed 's/a/b/w out.txt' x.rs", &["out.txt"]),
            ("perl -pi -e 's/a/b/' y.rs", &["y.rs"]),
            ("perl -e 'print 1' y.rs", &[]),
            ("ruby -i -pe 'gsub(/a/,\"b\")' y.rs", &["y.rs"]),
            ("ruby -e 'p 1' y.rs", &[]),
            ("patch -o out.rs a.rs fix.diff", &["out.rs"]),
            ("patch --output=out.rs a.rs", &["out.rs"]),
            ("mcp a.rs b.rs", &["b.rs"]),
            ("mmv -c 'a.*' 'b.#1'", &[]),
            (
                "echo hi > out.txt && cat a >> log.txt 2>/dev/null",
                &["out.txt", "log.txt"],
            ),
            ("cmd 2>&1 | tee -a build.log", &["build.log"]),
            ("mv old.rs new.rs", &["old.rs", "new.rs"]),
            (
                "cp -r a.rs b.rs dest/",
                &["dest/", "dest/<-a.rs", "dest/<-b.rs"],
            ),
            ("cp -a tmpl/. .", &[".", ".<-tmpl/."]),
            ("cp a.rs dest/", &["dest/"]),
            ("cp -t dest a.rs", &["dest/a.rs"]),
            ("cp --target-dir=dest/ x/a.rs", &["dest/a.rs"]),
            ("mv -tdest a.rs", &["a.rs", "dest/a.rs"]),
            ("ln -sf /x/a.rs", &["a.rs"]),
            ("ln -sf /x/a.rs b.rs", &["b.rs"]),
            ("mv --target-directory=dest a.rs", &["a.rs", "dest/a.rs"]),
            ("> out.txt", &["out.txt"]),
            ("sort -o sorted.txt in.txt", &["sorted.txt"]),
            ("rm -f gone.rs", &["gone.rs"]),
            ("touch t.rs; truncate -s 0 u.rs", &["t.rs", "u.rs"]),
            ("dd if=/dev/zero of=disk.img bs=1", &["disk.img"]),
            ("git mv a.rs b.rs", &["a.rs", "b.rs"]),
            ("git -C sub rm --cached c.rs", &["c.rs"]),
            ("git checkout -- d.rs e.rs", &["d.rs", "e.rs"]),
            ("git checkout main", &[]),
            ("git restore --source HEAD~1 f.rs", &["f.rs"]),
            ("bash -c 'sed -i s/x/y/ g.rs'", &["g.rs"]),
            ("grep -r 'sed -i' . > /dev/null", &[]),
            ("git commit -m 'rm -rf everything > x'", &[]),
            // Names known only when the command runs are not claimed by their literal text;
            // a quoted `$` is a real name.
            ("for i in 1 2; do echo $i > f$i.txt; done", &[]),
            ("touch out-$(date +%s).log keep.log", &["keep.log"]),
            ("echo x > 'price$.txt'", &["price$.txt"]),
        ];
        for (line, expected) in cases {
            assert_eq!(paths(line), *expected, "{line}");
        }
    }

    #[test]
    fn cd_moves_the_directory_and_unknown_directories_are_skipped() {
        let cmds =
            crate::shell::parse("cd /tmp/x && touch a; cd $D && touch b", Path::new("/w")).unwrap();
        let w = shell_writes(&cmds);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].cwd, PathBuf::from("/tmp/x"));
    }
}
