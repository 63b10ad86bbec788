//! Desktop and secure-deletion tools read as the `rm`, `mv`, `cp` or `tee` they are: GLib's
//! `gio remove|trash|move|rename|copy|save` (and the old `gvfs-rm`, `gvfs-trash`, `gvfs-move`,
//! `gvfs-rename`, `gvfs-copy`, `gvfs-save`), KDE's `kioclient move|remove|copy` (`kioclient5`,
//! `kioclient6`, `kde-mv`, `kde-cp`), and `srm`, `wipe`, `safe-rm`, `rmw`. Local paths only
//! (`file://` stripped); a move to a place that is not one (`trash:/`) is a removal.

use super::expand::Arg;

/// A path as a local file: `file:///x` as `/x`; `None` for another scheme (`trash:/`, `sftp:`).
fn local(a: &Arg) -> Option<Arg> {
    let t = a.text.as_str();
    if let Some(path) = t.strip_prefix("file://") {
        let mut a = a.clone();
        a.text = path.to_owned();
        return Some(a);
    }
    let scheme = t.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && !s.contains('/')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    (!scheme).then(|| a.clone())
}

fn argv(prog: &[&str], files: impl IntoIterator<Item = Arg>) -> Vec<Arg> {
    let mut out: Vec<Arg> = prog.iter().map(|p| Arg::plain(p)).collect();
    out.extend(files);
    out
}

/// `mv SRC... DEST`, or `rm -rf SRC...` when DEST is not a local path.
fn moved(ops: &[Arg]) -> Option<Vec<Arg>> {
    let (dest, srcs) = ops.split_last()?;
    let srcs: Vec<Arg> = srcs.iter().filter_map(local).collect();
    if srcs.is_empty() {
        return None;
    }
    Some(match local(dest) {
        Some(d) => argv(&["mv", "-f", "--"], srcs.into_iter().chain([d])),
        None => argv(&["rm", "-rf", "--"], srcs),
    })
}

/// The argv `name REST...` amounts to, when it is one of these tools.
pub(super) fn rewrite(name: &str, rest: &[Arg]) -> Option<Vec<Arg>> {
    let ops = |from: usize| -> Vec<Arg> {
        rest.iter()
            .skip(from)
            .filter(|a| !a.text.starts_with('-'))
            .cloned()
            .collect()
    };
    let (verb, from) = match name {
        "gio" | "kioclient" | "kioclient5" | "kioclient6" => {
            let at = rest.iter().position(|a| !a.text.starts_with('-'))?;
            (rest[at].text.as_str(), at + 1)
        }
        "gvfs-rm" | "gvfs-trash" | "srm" | "wipe" | "rmw" => ("remove", 0),
        "gvfs-move" | "kde-mv" => ("move", 0),
        "gvfs-rename" => ("rename", 0),
        "gvfs-copy" | "kde-cp" => ("copy", 0),
        "gvfs-save" => ("save", 0),
        "safe-rm" => return Some(argv(&["rm"], rest.iter().cloned())),
        _ => return None,
    };
    let flags = || rest[from..].iter().filter(|a| a.text.starts_with('-'));
    match verb {
        "remove" | "rm" | "trash" => {
            // `gio trash --empty|--list|--restore`, `rmw -z|-l|-u` do not remove what they name.
            let other = flags().any(|a| {
                matches!(
                    a.text.as_str(),
                    "--empty" | "--list" | "--restore" | "-z" | "-l" | "-u" | "--list-all"
                ) || (name == "rmw" && a.text.starts_with("--") && a.text != "--force")
            });
            let files: Vec<Arg> = ops(from).iter().filter_map(local).collect();
            (!other && !files.is_empty()).then(|| argv(&["rm", "-rf", "--"], files))
        }
        "move" | "mv" => moved(&ops(from)),
        "rename" => {
            let o = ops(from);
            let [file, new] = &o[..] else { return None };
            let file = local(file)?;
            let dir = std::path::Path::new(&file.text)
                .parent()
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut dest = new.clone();
            if !dir.is_empty() {
                dest.text = format!("{dir}/{}", new.text);
            }
            Some(argv(&["mv", "-f", "--"], [file, dest]))
        }
        "copy" | "cp" => {
            let o = ops(from);
            let (dest, srcs) = o.split_last()?;
            let srcs: Vec<Arg> = srcs.iter().filter_map(local).collect();
            (!srcs.is_empty())
                .then(|| argv(&["cp", "-r", "--"], srcs.into_iter().chain(local(dest))))
        }
        "save" => {
            let o = ops(from);
            Some(argv(&["tee", "--"], o.first().and_then(local)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(line: &str) -> Option<String> {
        let words: Vec<Arg> = line.split(' ').map(Arg::plain).collect();
        rewrite(&words[0].text, &words[1..]).map(|a| {
            a.iter()
                .map(|a| a.text.clone())
                .collect::<Vec<_>>()
                .join(" ")
        })
    }

    #[test]
    fn tools_read_as_what_they_are() {
        let cases: &[(&str, Option<&str>)] = &[
            ("gio trash new.txt", Some("rm -rf -- new.txt")),
            ("gio remove -f a b", Some("rm -rf -- a b")),
            ("gio trash file:///w/a.txt", Some("rm -rf -- /w/a.txt")),
            ("gio trash --empty", None),
            ("gio trash --restore trash:///a.txt", None),
            ("gio move a.txt /tmp/x", Some("mv -f -- a.txt /tmp/x")),
            (
                "gio rename src/a.txt b.txt",
                Some("mv -f -- src/a.txt src/b.txt"),
            ),
            ("gio rename a.txt b.txt", Some("mv -f -- a.txt b.txt")),
            ("gio copy x a.txt", Some("cp -r -- x a.txt")),
            ("gio save a.txt", Some("tee -- a.txt")),
            ("gio info a.txt", None),
            ("gvfs-rm a.txt", Some("rm -rf -- a.txt")),
            ("gvfs-trash a.txt", Some("rm -rf -- a.txt")),
            ("kioclient5 move a.txt trash:/", Some("rm -rf -- a.txt")),
            (
                "kioclient5 --noninteractive remove a.txt",
                Some("rm -rf -- a.txt"),
            ),
            ("kioclient move a.txt b.txt", Some("mv -f -- a.txt b.txt")),
            ("kde-mv a.txt /tmp", Some("mv -f -- a.txt /tmp")),
            ("kioclient5 cat a.txt", None),
            ("kioclient5 move sftp://h/a /tmp/a", None),
            ("srm -r dir", Some("rm -rf -- dir")),
            ("wipe -f a.txt", Some("rm -rf -- a.txt")),
            ("rmw a.txt", Some("rm -rf -- a.txt")),
            ("rmw -z a.txt", None),
            ("safe-rm -f a.txt", Some("rm -f a.txt")),
        ];
        for (line, expected) in cases {
            assert_eq!(rw(line).as_deref(), *expected, "{line}");
        }
    }
}
