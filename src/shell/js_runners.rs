//! The JavaScript world's ways to run a program (`npx`, `npm exec`, `pnpm dlx`, `yarn dlx`,
//! `bunx`, ...), peeled to the program they run (`npx -c TEXT` to `sh -c TEXT`), and its
//! deletion programs (`rimraf`, `del-cli`, `trash`, `shx rm`), read as the `rm -rf` they are.

use super::expand::Arg;

/// The argv `name REST...` amounts to, when it is a package runner or a deletion program.
pub(super) fn rewrite(name: &str, rest: &[Arg]) -> Option<Vec<Arg>> {
    match name {
        // They delete their operands, folders and all; their options only tune how.
        "rimraf" | "del" | "del-cli" | "trash" | "trash-put" | "rmrf" | "premove" => {
            let mut argv: Vec<Arg> = ["rm", "-rf", "--"].map(Arg::plain).into();
            argv.extend(rest.iter().filter(|a| !a.text.starts_with('-')).cloned());
            Some(argv)
        }
        // `shx [--silent] CMD ARGS`: the shelljs command of the same name.
        "shx" => {
            let at = rest.iter().position(|a| !a.text.starts_with('-'))?;
            Some(rest[at..].to_vec())
        }
        "npx" | "bunx" | "pnpx" => runner(rest),
        "npm" | "pnpm" | "yarn" | "bun" => {
            let (verb, after) = rest.split_first()?;
            let runs = matches!(
                (name, verb.text.as_str()),
                ("npm", "exec" | "x") | ("pnpm" | "yarn", "exec" | "dlx") | ("bun", "x")
            );
            runs.then(|| runner(after)).flatten()
        }
        _ => None,
    }
}

/// Options of the runners that take the next word.
const WITH_VALUE: &[&str] = &[
    "-p",
    "--package",
    "--prefix",
    "-w",
    "--workspace",
    "--node-options",
    "--registry",
    "--cache",
    "--userconfig",
    "--filter",
    "-F",
    "-C",
    "--dir",
];

/// The program a runner's arguments name (its version or tag dropped), with its arguments;
/// `sh -c TEXT` for `-c TEXT` / `--call TEXT` / `--shell-mode TEXT`.
fn runner(args: &[Arg]) -> Option<Vec<Arg>> {
    let shell = |text: &Arg| Some(vec![Arg::plain("sh"), Arg::plain("-c"), text.clone()]);
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        match t {
            "--" => {
                i += 1;
                break;
            }
            "-c" | "--call" | "--shell-mode" => return shell(args.get(i + 1)?),
            _ if t.starts_with("--call=") => {
                let text = Arg {
                    text: t["--call=".len()..].to_owned(),
                    ..a.clone()
                };
                return shell(&text);
            }
            _ if WITH_VALUE.contains(&t) => i += 2,
            _ if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let program = args.get(i)?;
    let mut argv = vec![Arg {
        text: package_bin(&program.text).to_owned(),
        ..program.clone()
    }];
    argv.extend(args[i + 1..].iter().cloned());
    Some(argv)
}

/// The command a package spec runs: `rimraf@5` → `rimraf`, `@scope/tool@1.2` → `tool`.
fn package_bin(spec: &str) -> &str {
    let unscoped = match spec.strip_prefix('@') {
        Some(s) => s.split_once('/').map_or(s, |(_, name)| name),
        None => spec,
    };
    unscoped.split('@').next().unwrap_or(unscoped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(line: &str) -> Option<String> {
        let words: Vec<Arg> = line.split(' ').map(Arg::plain).collect();
        let got = rewrite(&words[0].text, &words[1..])?;
        Some(
            got.iter()
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        )
    }

    #[test]
    fn runners_name_the_program_they_run() {
        for (line, want) in [
            ("npx rimraf a", Some("rimraf a")),
            ("npx --yes rimraf@5.0.1 -g a b", Some("rimraf -g a b")),
            ("rimraf -g a b", Some("rm -rf -- a b")),
            ("npx -p typescript tsc -p .", Some("tsc -p .")),
            ("npx @scope/tool@1.2 x", Some("tool x")),
            ("npm exec -- jest --watch", Some("jest --watch")),
            ("npm x -c rm", Some("sh -c rm")),
            ("npx --call=make", Some("sh -c make")),
            ("pnpm --filter", None),
            ("pnpm install", None),
            ("npm run build", None),
            ("yarn dlx prettier .", Some("prettier .")),
            ("bun x vitest", Some("vitest")),
            ("bun test", None),
            ("shx --silent mv a b", Some("mv a b")),
            ("shx", None),
            ("npx", None),
            ("trash-put f", Some("rm -rf -- f")),
        ] {
            assert_eq!(run(line).as_deref(), want, "{line}");
        }
    }

    #[test]
    fn package_specs_drop_their_version_and_scope() {
        assert_eq!(package_bin("rimraf@5"), "rimraf");
        assert_eq!(package_bin("@biomejs/biome"), "biome");
        assert_eq!(package_bin("@scope/x@latest"), "x");
        assert_eq!(package_bin("@"), "");
    }
}
