//! The files written by programs whose writes are not plain operands: `install` and `sort -o`
//! (overwrite their destination), `ed` with a file (rewrite it; the vim family is read by
//! [`crate::shell`]'s Ex reader), `awk` printing
//! to a literal file, `gawk -i inplace`, and `find ... -exec WRITER` (every file it finds).
//! Pure: what the words show, nothing read from disk.

/// Where a program writes: single files, or every file under a folder.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Writes<'a> {
    /// Files, as written.
    pub(crate) files: Vec<std::borrow::Cow<'a, str>>,
    /// Folders every file of which may be written (`find DIR -exec truncate`).
    pub(crate) trees: Vec<&'a str>,
}

use crate::shell::Input;

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `install [OPTIONS] SRC... DEST` / `install -t DIR SRC...`: what it writes over (`-d` makes
/// folders only).
fn install(args: &[String]) -> Vec<std::borrow::Cow<'_, str>> {
    // One spelling of every option (`--target=DIR`, `-tDIR`, `-Dm644`).
    let norm = super::guard::options::copier_args("install", args).unwrap_or_default();
    let mut operands: Vec<&str> = Vec::new();
    let mut target: Option<&str> = None;
    let mut it = norm.iter();
    let mut rest = false;
    while let Some(a) = it.next() {
        let t = a.as_str();
        if rest || !t.starts_with('-') || t == "-" {
            operands.push(t);
        } else if t == "--" {
            rest = true;
        } else if t == "-d" || t == "--directory" {
            return Vec::new();
        } else if t == "-t" || t == "--target-directory" {
            target = it.next().map(String::as_str);
        } else if matches!(
            t,
            "-m" | "--mode"
                | "-o"
                | "--owner"
                | "-g"
                | "--group"
                | "-S"
                | "--suffix"
                | "--strip-program"
        ) {
            it.next();
        }
    }
    match target {
        Some(dir) => operands
            .iter()
            .map(|o| format!("{}/{}", dir.trim_end_matches('/'), basename(o)).into())
            .collect(),
        None if operands.len() >= 2 => vec![operands[operands.len() - 1].to_owned().into()],
        None => Vec::new(),
    }
}

/// `sort -o FILE` / `-oFILE` / `--output[=]FILE`.
fn sort_output(args: &[String]) -> Option<&str> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.as_str();
        if t == "--" {
            return None;
        }
        if t == "-o" || t == "--output" {
            return it.next().map(String::as_str);
        }
        if let Some(v) = t.strip_prefix("--output=") {
            return Some(v);
        }
        if !t.starts_with("--")
            && let Some(flags) = t.strip_prefix('-')
            && let Some(at) = flags.find('o')
        {
            let v = &flags[at + 1..];
            return if v.is_empty() {
                it.next().map(String::as_str)
            } else {
                Some(v)
            };
        }
    }
    None
}

/// `ed [-s] [-p PROMPT] FILE`: the file it edits (and writes when its script says `w`).
fn ed(args: &[String]) -> Option<&str> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-p" || a == "--prompt" {
            it.next();
        } else if !a.starts_with('-') {
            return Some(a.as_str());
        }
    }
    None
}

/// The literal files an awk program prints into (`print > "f"`, `printf ... >> "f"`).
fn awk_outputs(program: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for statement in program.split([';', '\n', '{', '}']) {
        let Some(at) = statement.find("print") else {
            continue;
        };
        let rest = &statement[at..];
        let Some(gt) = rest.rfind('>') else { continue };
        let target = rest[gt + 1..].trim_start();
        if let Some(name) = target.strip_prefix('"').and_then(|t| t.split('"').next())
            && !name.is_empty()
            && !name.starts_with("/dev/")
        {
            out.push(name);
        }
    }
    out
}

/// awk's program and file operands; `-i inplace` (gawk) rewrites the operands.
fn awk(args: &[String]) -> Vec<&str> {
    let mut program = None;
    let mut files = Vec::new();
    let mut inplace = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.as_str();
        if matches!(t, "-v" | "-F" | "-f" | "--file" | "--assign") {
            it.next();
            // A program from a file: the words after it are all operands.
            if matches!(t, "-f" | "--file") {
                program = Some("");
            }
        } else if t == "-i" || t == "--include" {
            inplace |= it.next().is_some_and(|v| v == "inplace");
        } else if t == "-iinplace" || t == "--include=inplace" {
            inplace = true;
        } else if t.starts_with('-') && t.len() > 1 && program.is_none() {
        } else if program.is_none() {
            program = Some(t);
        } else if !t.contains('=') {
            files.push(t);
        }
    }
    let mut out = program.map(awk_outputs).unwrap_or_default();
    if inplace {
        out.extend(files);
    }
    out
}

/// Programs that, run by `find -exec`, write the files found.
fn writes_found(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let args = &argv[1..];
    match basename(first) {
        "truncate" | "shred" | "tee" | "dd" | "ed" => true,
        "sed" | "gsed" | "perl" => args.iter().any(|a| {
            a.starts_with("-i") || a == "--in-place" || (a.starts_with("-p") && a.contains('i'))
        }),
        name if crate::shell::is_vim(name) => {
            let argv = [argv, &["{}".to_owned()]].concat();
            let read = |_: &std::path::Path| None;
            let ex =
                crate::shell::ex_judge(&argv, &Input::Inherited, std::path::Path::new("."), &read);
            ex.is_some_and(|e| e.writes.iter().any(|f| f == "{}"))
        }
        _ => false,
    }
}

/// `find PATHS... -exec WRITER ... {}`: its starting points, every file of which may be
/// written.
fn find(args: &[String]) -> Vec<&str> {
    let starts: Vec<&str> = args
        .iter()
        .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!"))
        .map(String::as_str)
        .collect();
    let mut i = 0;
    while i < args.len() {
        if matches!(args[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let end = args[i + 1..]
                .iter()
                .position(|a| a == ";" || a == "+")
                .map_or(args.len(), |p| i + 1 + p);
            if writes_found(&args[i + 1..end]) {
                return if starts.is_empty() { vec!["."] } else { starts };
            }
            i = end;
        }
        i += 1;
    }
    Vec::new()
}

/// What `name` (a program's basename) with `args` writes, for the programs of this module.
pub(crate) fn writes<'a>(name: &str, args: &'a [String]) -> Writes<'a> {
    let mut w = Writes::default();
    match name {
        "install" | "ginstall" => w.files = install(args),
        "sort" | "gsort" | "iconv" => w.files.extend(sort_output(args).map(Into::into)),
        "ed" | "red" => w.files.extend(ed(args).map(Into::into)),
        "awk" | "gawk" | "mawk" | "nawk" => {
            w.files.extend(awk(args).into_iter().map(Into::into));
        }
        "find" => w.trees = find(args),
        _ => {}
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str) -> (Vec<String>, Vec<String>) {
        let words: Vec<String> = shell_words(line);
        let w = writes(basename(&words[0]), &words[1..]);
        (
            w.files.iter().map(|f| f.to_string()).collect(),
            w.trees.iter().map(|f| f.to_string()).collect(),
        )
    }

    fn shell_words(line: &str) -> Vec<String> {
        let name = line.split(' ').next().unwrap();
        let cmds = crate::shell::parse(line, std::path::Path::new("/nonexistent")).unwrap();
        cmds.into_iter().find(|c| c.argv[0] == name).unwrap().argv
    }

    #[test]
    fn writers_name_what_they_write() {
        let files: &[(&str, &[&str])] = &[
            ("install -m 644 /dev/null a.txt", &["a.txt"]),
            ("install -t bin x y/z", &["bin/x", "bin/z"]),
            ("install --target=bin -m644 x", &["bin/x"]),
            ("install -Dtbin x", &["bin/x"]),
            ("install -d out", &[]),
            ("sort -o a.txt in", &["a.txt"]),
            ("sort -ro a.txt in", &["a.txt"]),
            ("sort -oa.txt in", &["a.txt"]),
            ("sort --output=a.txt in", &["a.txt"]),
            ("sort in", &[]),
            ("ed -s f", &["f"]),
            ("ed", &[]),
            ("awk 'BEGIN{printf \"\" > \"f\"}'", &["f"]),
            ("awk '{ print $1 >> \"out.log\" }' in", &["out.log"]),
            ("awk '{ print $1 }' in", &[]),
            ("awk '{ print > \"/dev/stderr\" }'", &[]),
            ("gawk -i inplace '{ print }' f g", &["f", "g"]),
        ];
        for (line, expected) in files {
            assert_eq!(of(line).0, *expected, "{line}");
        }
        assert_eq!(of("find src -type f -exec truncate -s0 {} +").1, ["src"]);
        assert_eq!(of("find -name x -exec sed -i s/a/b/ {} \\;").1, ["."]);
        assert!(of("find src -exec grep x {} +").1.is_empty());
    }
}
