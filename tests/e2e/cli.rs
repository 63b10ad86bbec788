//! Fetching the real Claude Code CLI once per machine: `npm pack` of the platform package at a
//! pinned version, unpacked into a cache folder outside the repository, atomically (a temporary
//! folder renamed into place) and under a file lock so parallel test processes fetch it once.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The npm package that holds the self-contained `claude` executable.
pub const PACKAGE: &str = "@anthropic-ai/claude-code-linux-x64";
/// The pinned version (see `../shared/reference/real-host-testing.md`).
pub const VERSION: &str = "2.1.332";

/// The path of the cached `claude` executable, fetching it on first use. Panics with a message
/// naming the package and version when it cannot be had. `GIT_DIBS_E2E_CLAUDE` may name an
/// existing executable instead.
pub fn claude() -> PathBuf {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = PATH.get_or_init(|| {
        if let Some(path) = std::env::var_os("GIT_DIBS_E2E_CLAUDE") {
            return Ok(PathBuf::from(path));
        }
        fetch(&cache_root()?)
    });
    match found {
        Ok(path) => path.clone(),
        Err(e) => panic!("cannot get the Claude Code CLI ({PACKAGE}@{VERSION}): {e}"),
    }
}

/// `$XDG_CACHE_HOME/git-dibs-e2e`, else `~/.cache/git-dibs-e2e`.
fn cache_root() -> Result<PathBuf, String> {
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(home) => PathBuf::from(home).join(".cache"),
            None => return Err("neither XDG_CACHE_HOME nor HOME is set".into()),
        },
    };
    Ok(base.join("git-dibs-e2e"))
}

/// The executable inside an unpacked package folder.
fn executable(dir: &Path) -> PathBuf {
    dir.join("package").join("claude")
}

/// Fetch into `<root>/claude-<VERSION>/` unless it is there already.
fn fetch(root: &Path) -> Result<PathBuf, String> {
    let dest = root.join(format!("claude-{VERSION}"));
    if executable(&dest).is_file() {
        return Ok(executable(&dest));
    }
    fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let lock_path = root.join(format!("claude-{VERSION}.lock"));
    let lock = File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    // Another process may have finished while this one waited for the lock.
    if executable(&dest).is_file() {
        return Ok(executable(&dest));
    }
    // Under the lock no one else is fetching: temporary folders left here are from fetches
    // that were killed, and go.
    let stale = format!(".claude-{VERSION}.tmp-");
    for entry in fs::read_dir(root).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&stale) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
    let tmp = root.join(format!("{stale}{}", std::process::id()));
    fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let result = unpack_into(&tmp).and_then(|()| {
        fs::rename(&tmp, &dest)
            .map_err(|e| format!("cannot move {} to {}: {e}", tmp.display(), dest.display()))
    });
    if result.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result?;
    drop(lock);
    Ok(executable(&dest))
}

/// `npm pack` the package into `dir`, unpack it there, check the version, drop the tarball.
fn unpack_into(dir: &Path) -> Result<(), String> {
    let spec = format!("{PACKAGE}@{VERSION}");
    eprintln!("e2e: fetching {spec} from the npm registry (about 190 MB, once per machine)");
    let out = Command::new("npm")
        .args(["pack", &spec, "--silent", "--pack-destination"])
        .arg(dir)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run npm: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`npm pack {spec}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let tarball = fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "tgz"))
        .ok_or_else(|| format!("`npm pack {spec}` left no tarball in {}", dir.display()))?;
    let out = Command::new("tar")
        .arg("xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(dir)
        .output()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cannot unpack {}: {}",
            tarball.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let _ = fs::remove_file(&tarball);
    let exe = executable(dir);
    let out = Command::new(&exe)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let version = String::from_utf8_lossy(&out.stdout);
    if !version.contains(VERSION) {
        return Err(format!(
            "{} --version printed {:?}, expected {VERSION}",
            exe.display(),
            version.trim()
        ));
    }
    Ok(())
}
