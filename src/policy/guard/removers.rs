//! Programs that remove the files they are given, beyond `rm`: compressors (`gzip`, `bzip2`,
//! `xz`, `lzma`, `lzip`, `pigz`, `compress` unless `-k`/`-c`; `zstd`/`lz4` with `--rm`),
//! archivers that move files in (`tar --remove-files`, `zip -m`, `7z a -sdel`, `rar m`) and
//! perl's and util-linux's `rename`, and `mmv` (its FROM pattern renamed away; [`is_pattern`]).
//! What they remove, as operands, for the `rm` rule ([`super::files`]).

/// The operands `name` (a basename) removes with `args`; `None` when it removes nothing.
pub(crate) fn removed(name: &str, args: &[String]) -> Option<Vec<String>> {
    let ops = match name {
        "gzip" | "gunzip" | "pigz" | "unpigz" | "bzip2" | "bunzip2" | "xz" | "unxz" | "lzma"
        | "unlzma" | "lzip" | "compress" | "uncompress" => compressor(args, false),
        "zstd" | "unzstd" | "zstdmt" | "pzstd" | "lz4" | "unlz4" | "brotli" => {
            compressor(args, true)
        }
        "zip" => zip(args),
        "7z" | "7za" | "7zr" | "7zz" | "7zzs" => seven_zip(args),
        "rar" => rar(args),
        "rename" | "prename" | "perl-rename" | "file-rename" | "rename.ul" => rename(args),
        "mmv" => mmv(args),
        _ => None,
    }?;
    (!ops.is_empty()).then_some(ops)
}

/// The `rm -r` a remover's command line amounts to for the worktree rule (`zip -rm x.zip
/// .git`, `7z a -sdel x.7z ../wt`, `gzip -r .git`: what they take in is gone from where it
/// was), when `argv` removes anything. Patterns (mmv) are not paths: none.
pub(crate) fn as_rm(argv: &[String]) -> Option<Vec<String>> {
    let name = argv.first()?.rsplit('/').next()?;
    if is_pattern(name) {
        return None;
    }
    let ops = removed(name, &argv[1..])?;
    Some(
        ["rm", "-r", "--"]
            .into_iter()
            .map(str::to_owned)
            .chain(ops)
            .collect(),
    )
}

/// Whether the operands `name` removes are patterns matched against the files there (mmv's
/// `*`, `?`, `[...]`, and `;` for any folder), not names.
pub(crate) fn is_pattern(name: &str) -> bool {
    name == "mmv"
}

/// `mmv [-m|-x|-r] FROM TO`: the files FROM matches are renamed away (as a glob, `;` any
/// folder), and TO, when it names one file, is written over. Copying, appending and linking
/// (`-c`, `-o`, `-a`, `-l`, `-s`: `mcp`, `mad`, `mln`) and `-n` remove nothing; pairs read from
/// standard input are not known here.
fn mmv(args: &[String]) -> Option<Vec<String>> {
    let mut operands = Vec::new();
    let mut rest = false;
    for a in args {
        if rest || !a.starts_with('-') {
            operands.push(a.as_str());
        } else if a == "--" {
            rest = true;
        } else if a[1..].contains(['c', 'o', 'a', 'l', 's', 'n']) {
            return None;
        }
    }
    let [from, to] = operands[..] else {
        return None;
    };
    let mut out = vec![from.replace(';', "*")];
    if !to.contains(['#', '*', '?', '[', ';']) {
        out.push(to.to_owned());
    }
    Some(out)
}

/// `rar m ARCHIVE FILES...` (`mf`: move files in) and `rar a -df ARCHIVE FILES...`: the files
/// moved into the archive.
fn rar(args: &[String]) -> Option<Vec<String>> {
    let (command, rest) = args.split_first()?;
    let delete = rest.iter().any(|a| a.eq_ignore_ascii_case("-df"));
    let moves = matches!(command.to_ascii_lowercase().as_str(), "m" | "mf")
        || (command.eq_ignore_ascii_case("a") && delete);
    let operands: Vec<String> = rest
        .iter()
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .cloned()
        .collect();
    moves.then_some(operands)
}

/// A compressor's file operands, when it removes them: by default, or (`opt_in`: zstd, lz4)
/// only with `--rm`. `-k`/`--keep`, `-c`/`--stdout`, `-t`/`--test`, `-l`/`--list` keep them.
fn compressor(args: &[String], opt_in: bool) -> Option<Vec<String>> {
    let mut removes = !opt_in;
    let mut files = Vec::new();
    let mut rest = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.as_str();
        if rest || !t.starts_with('-') || t == "-" {
            if t != "-" {
                files.push(t.to_owned());
            }
        } else if t == "--" {
            rest = true;
        } else if let Some(long) = t.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            match name {
                "rm" => removes = true,
                "keep" | "stdout" | "to-stdout" | "test" | "list" => return None,
                "suffix" | "threads" | "memlimit" | "format" | "check" | "output"
                    if !t.contains('=') =>
                {
                    it.next();
                }
                _ => {}
            }
        } else {
            let flags = &t[1..];
            if flags.contains(['k', 'c', 't', 'l']) && !flags.starts_with(['T', 'M']) {
                return None;
            }
            // Options that take the next word: `-S SUF`, `-o FILE`, `-D DICT`, `-T N`, `-M N`.
            if flags.len() == 1 && flags.contains(['S', 'o', 'D', 'T', 'M', 'F', 'C']) {
                it.next();
            }
        }
    }
    removes.then_some(files)
}

/// `zip -m ARCHIVE FILES...` (`--move`, `-rm`, `-qm`): the files moved into the archive.
fn zip(args: &[String]) -> Option<Vec<String>> {
    let mut moves = false;
    let mut operands = Vec::new();
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let t = a.as_str();
        if t == "--move" {
            moves = true;
        } else if matches!(t, "-x" | "-i" | "--exclude" | "--include") {
            // A list of patterns, up to the next option.
            while it.peek().is_some_and(|n| !n.starts_with('-')) {
                it.next();
            }
        } else if matches!(
            t,
            "-b" | "-n" | "-t" | "-tt" | "-P" | "-O" | "-Z" | "-s" | "-sp"
        ) {
            it.next();
        } else if t.starts_with("--") {
        } else if t.starts_with('-') && t.len() > 1 {
            moves |= t[1..].contains('m');
        } else {
            operands.push(t.to_owned());
        }
    }
    (moves && operands.len() > 1).then(|| operands.split_off(1))
}

/// `7z a -sdel ARCHIVE FILES...`: the files added, then deleted.
fn seven_zip(args: &[String]) -> Option<Vec<String>> {
    if !args.iter().any(|a| a.eq_ignore_ascii_case("-sdel")) {
        return None;
    }
    let operands: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    // The command letter, the archive, then the files.
    (operands.len() > 2).then(|| operands[2..].to_vec())
}

/// perl `rename [-v] [-f] [-e] EXPR FILES...` (util-linux `rename FROM TO FILES...`): the files
/// renamed away. `-n`/`--no-act`/`--dry-run` renames nothing.
fn rename(args: &[String]) -> Option<Vec<String>> {
    let mut expr_given = false;
    let mut operands = Vec::new();
    let mut it = args.iter();
    let mut rest = false;
    while let Some(a) = it.next() {
        let t = a.as_str();
        if rest || !t.starts_with('-') {
            operands.push(t.to_owned());
        } else if t == "--" {
            rest = true;
        } else if matches!(
            t,
            "-n" | "--no-act" | "--nono" | "--dry-run" | "-l" | "--list"
        ) {
            return None;
        } else if t == "-e" || t == "-E" {
            expr_given = true;
            it.next();
        }
    }
    let perl = expr_given
        || operands.first().is_some_and(|e| {
            let mut c = e.chars();
            matches!((c.next(), c.next()), (Some('s' | 'y'), Some(d)) if !d.is_alphanumeric())
                || e.starts_with("tr")
                || e.contains(['/', '$'])
        });
    let skip = match (expr_given, perl) {
        (true, _) => 0,
        (false, true) => 1,
        (false, false) => 2,
    };
    Some(operands.into_iter().skip(skip).collect())
}

#[cfg(test)]
mod tests {
    use super::removed;

    fn r(line: &str) -> Option<Vec<String>> {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        removed(&words[0], &words[1..])
    }

    #[test]
    fn what_each_removes() {
        let yes: &[(&str, &[&str])] = &[
            ("gzip new.txt", &["new.txt"]),
            ("zstdmt -q --rm new.txt", &["new.txt"]),
            ("brotli --rm a.txt", &["a.txt"]),
            ("7zz a -sdel x.7z a.txt", &["a.txt"]),
            ("rar m x.rar a.txt new.txt", &["a.txt", "new.txt"]),
            ("rar a -df x.rar a.txt", &["a.txt"]),
            ("rename.ul a a2 a.txt", &["a.txt"]),
            ("gzip -9 a b", &["a", "b"]),
            ("gzip -r src", &["src"]),
            ("gunzip a.gz", &["a.gz"]),
            ("bzip2 -z a.txt", &["a.txt"]),
            ("xz -T 4 a.txt", &["a.txt"]),
            ("xz --threads=4 a.txt", &["a.txt"]),
            ("zstd --rm a.txt", &["a.txt"]),
            ("lz4 --rm a.txt", &["a.txt"]),
            ("zip -m x.zip new.txt", &["new.txt"]),
            ("zip -qrm x.zip src", &["src"]),
            ("zip --move x.zip a b", &["a", "b"]),
            ("7z a -sdel x.7z new.txt", &["new.txt"]),
            ("7z a x.7z -sdel a b", &["a", "b"]),
            ("rename s/new/old/ new.txt", &["new.txt"]),
            (
                "rename -v 's/\\.txt$/.md/' a.txt b.txt",
                &["a.txt", "b.txt"],
            ),
            ("rename -e s/a/b/ a", &["a"]),
            ("rename .txt .md a.txt", &["a.txt"]),
            ("mmv new.txt old.txt", &["new.txt", "old.txt"]),
            ("mmv -d new.* old.#1", &["new.*"]),
            ("mmv -r ;*.txt #1#2.md", &["**.txt"]),
        ];
        for (line, expected) in yes {
            assert_eq!(
                r(line).as_deref(),
                Some(*expected)
                    .map(|e| e.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                    .as_deref(),
                "{line}"
            );
        }
        for line in [
            "gzip -k new.txt",
            "gzip --keep new.txt",
            "gzip -c new.txt",
            "gzip -9c new.txt",
            "gzip --stdout new.txt",
            "gzip -t a.gz",
            "gzip -l a.gz",
            "gzip",
            "zstd a.txt",
            "zstd -o out.zst a.txt",
            "lz4 a.txt",
            "zip x.zip new.txt",
            "zip -r x.zip src",
            "7z a x.7z new.txt",
            "rename -n s/a/b/ a",
            "tar czf out.tgz src",
            "zstdmt a.txt",
            "brotli a.txt",
            "rar a x.rar a.txt",
            "rar x x.rar",
            "7zz a x.7z a.txt",
            "mmv -c a b",
            "mmv -n a b",
            "mmv",
            "mcp a b",
        ] {
            assert_eq!(r(line), None, "{line}");
        }
    }
}
