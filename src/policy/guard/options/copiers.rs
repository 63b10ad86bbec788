//! The options of GNU `mv`, `cp`, `ln` and `install` in one spelling: long options in full
//! (`--target=src` is `--target-directory=src`), a valued long option split from its value
//! (`--target-directory=src` becomes `--target-directory src`), and short clusters split into
//! one word per flag with a value as its own word (`-ftsrc` becomes `-f -t src`), up to `--`.
//! Every reader of these programs then sees `-t DIR` / `--target-directory DIR` only.

/// Long options of GNU `mv`; `=` marks one that takes a value.
const MV: &[&str] = &[
    "backup",
    "context",
    "debug",
    "exchange",
    "force",
    "interactive",
    "no-clobber",
    "no-copy",
    "no-target-directory",
    "strip-trailing-slashes",
    "suffix=",
    "target-directory=",
    "update",
    "verbose",
    "help",
    "version",
];

/// Long options of GNU `cp`.
const CP: &[&str] = &[
    "archive",
    "attributes-only",
    "backup",
    "copy-contents",
    "debug",
    "dereference",
    "force",
    "interactive",
    "keep-directory-symlink",
    "link",
    "no-clobber",
    "no-dereference",
    "no-preserve",
    "no-target-directory",
    "one-file-system",
    "parents",
    "preserve",
    "recursive",
    "reflink",
    "remove-destination",
    "sparse",
    "strip-trailing-slashes",
    "suffix=",
    "symbolic-link",
    "target-directory=",
    "update",
    "verbose",
    "context",
    "help",
    "version",
];

/// Long options of GNU `ln`.
const LN: &[&str] = &[
    "backup",
    "directory",
    "force",
    "interactive",
    "logical",
    "no-dereference",
    "no-target-directory",
    "physical",
    "relative",
    "symbolic",
    "suffix=",
    "target-directory=",
    "verbose",
    "help",
    "version",
];

/// Long options of GNU `install`.
const INSTALL: &[&str] = &[
    "backup",
    "compare",
    "context",
    "debug",
    "directory",
    "group=",
    "mode=",
    "no-target-directory",
    "owner=",
    "preserve-context",
    "preserve-timestamps",
    "strip",
    "strip-program=",
    "suffix=",
    "target-directory=",
    "verbose",
    "help",
    "version",
];

/// The long options and the short options taking a value, for a program this module reads.
fn spec(name: &str) -> Option<(&'static [&'static str], &'static str)> {
    match name {
        "mv" | "gmv" => Some((MV, "St")),
        "cp" | "gcp" => Some((CP, "St")),
        "ln" | "gln" => Some((LN, "St")),
        "install" | "ginstall" => Some((INSTALL, "gmoSt")),
        _ => None,
    }
}

/// `args` (the words after the program's name) in one spelling, when `name` is `mv`, `cp`, `ln`
/// or `install`; `None` for other programs.
pub(crate) fn copier_args(name: &str, args: &[String]) -> Option<Vec<String>> {
    let (longs, short_valued) = spec(name)?;
    let names: Vec<&str> = longs.iter().map(|l| l.trim_end_matches('=')).collect();
    let mut out = Vec::with_capacity(args.len() + 2);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            out.push(a.clone());
            out.extend(it.cloned());
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let full = super::full(a, &names);
            let (n, value) = match full[2..].split_once('=') {
                Some((n, v)) => (n.to_owned(), Some(v.to_owned())),
                None => (full[2..].to_owned(), None),
            };
            let valued = longs
                .iter()
                .any(|l| l.strip_suffix('=') == Some(n.as_str()));
            let takes_next = valued && value.is_none();
            match value {
                Some(v) if valued => {
                    out.push(format!("--{n}"));
                    out.push(v);
                }
                _ if body.is_empty() => out.push(a.clone()),
                _ => out.push(full),
            }
            if takes_next && let Some(v) = it.next() {
                out.push(v.clone());
            }
        } else if let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) {
            for (i, c) in flags.char_indices() {
                out.push(format!("-{c}"));
                if short_valued.contains(c) {
                    let rest = &flags[i + c.len_utf8()..];
                    if !rest.is_empty() {
                        out.push(rest.to_owned());
                    } else if let Some(v) = it.next() {
                        out.push(v.clone());
                    }
                    break;
                }
            }
        } else {
            out.push(a.clone());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::copier_args;

    fn norm(name: &str, line: &str) -> Vec<String> {
        let v: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        copier_args(name, &v).unwrap()
    }

    #[test]
    fn target_directory_reads_the_same_in_every_spelling() {
        for line in [
            "--target-directory=src F",
            "--target-dir=src F",
            "--t=src F",
            "--target src F",
        ] {
            assert_eq!(
                norm("mv", line),
                ["--target-directory", "src", "F"],
                "{line}"
            );
        }
        assert_eq!(norm("mv", "-tsrc F"), ["-t", "src", "F"]);
        assert_eq!(norm("cp", "-ftsrc F"), ["-f", "-t", "src", "F"]);
        assert_eq!(norm("ln", "-sf -t src F"), ["-s", "-f", "-t", "src", "F"]);
        assert_eq!(
            norm("install", "-m644 -t src F"),
            ["-m", "644", "-t", "src", "F"]
        );
        assert_eq!(norm("mv", "--suffix=.b a b"), ["--suffix", ".b", "a", "b"]);
        assert_eq!(norm("mv", "-- --t=x y"), ["--", "--t=x", "y"]);
        assert_eq!(norm("mv", "--f a b"), ["--force", "a", "b"]);
        assert!(copier_args("rm", &[]).is_none());
    }
}
