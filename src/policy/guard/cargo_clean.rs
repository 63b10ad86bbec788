//! `cargo clean` with a target folder named (`--target-dir DIR`, `CARGO_TARGET_DIR=DIR`,
//! `CARGO_BUILD_TARGET_DIR=DIR`): it removes that whole folder, so it is judged as `rm -rf DIR`
//! (red team 8b/26). The default `target/` stays everyday.

/// The `rm -rf DIR` a `cargo clean` amounts to, when it names its target folder.
pub(super) fn as_rm(argv: &[String], assignments: &[(String, String)]) -> Option<Vec<String>> {
    let name = argv.first()?.rsplit('/').next()?;
    if name != "cargo" {
        return None;
    }
    // `cargo +toolchain clean`, and cargo's own options before the subcommand.
    let mut i = 1;
    while argv
        .get(i)
        .is_some_and(|a| a.starts_with('+') || a.starts_with('-'))
    {
        if matches!(argv[i].as_str(), "-C" | "--config" | "-Z" | "--color") {
            i += 1;
        }
        i += 1;
    }
    if argv.get(i).map(String::as_str) != Some("clean") {
        return None;
    }
    let mut dir = assignments
        .iter()
        .rev()
        .find(|(k, _)| k == "CARGO_TARGET_DIR" || k == "CARGO_BUILD_TARGET_DIR")
        .map(|(_, v)| v.clone());
    let mut it = argv[i + 1..].iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" => break,
            "-n" | "--dry-run" => return None,
            "--target-dir" => dir = it.next().cloned(),
            t => {
                if let Some(v) = t.strip_prefix("--target-dir=") {
                    dir = Some(v.to_owned());
                }
            }
        }
    }
    let dir = dir.filter(|d| !d.is_empty())?;
    Some(vec!["rm".into(), "-rf".into(), dir])
}

#[cfg(test)]
mod tests {
    use super::as_rm;

    fn rm(line: &str, env: &[(&str, &str)]) -> Option<String> {
        let argv: Vec<String> = line.split(' ').map(str::to_owned).collect();
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        as_rm(&argv, &env).map(|v| v.join(" "))
    }

    #[test]
    fn cargo_clean_of_a_named_folder_is_rm_of_it() {
        assert_eq!(
            rm("cargo clean --target-dir ../x", &[]).unwrap(),
            "rm -rf ../x"
        );
        assert_eq!(
            rm("cargo clean --target-dir=src", &[]).unwrap(),
            "rm -rf src"
        );
        assert_eq!(
            rm("cargo +nightly clean -p a --target-dir d", &[]).unwrap(),
            "rm -rf d"
        );
        assert_eq!(
            rm("cargo clean", &[("CARGO_TARGET_DIR", "../x")]).unwrap(),
            "rm -rf ../x"
        );
        assert!(rm("cargo clean", &[]).is_none());
        assert!(rm("cargo clean --dry-run --target-dir ../x", &[]).is_none());
        assert!(rm("cargo build --target-dir ../x", &[]).is_none());
    }
}
