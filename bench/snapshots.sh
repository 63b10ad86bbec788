#!/usr/bin/env bash
# What snapshots cost on disk, measured: a busy session's day (EDITS edits through the real
# hook, Edit PostToolUse, of 10 KB files spread over FILES_TOUCHED files) in a repository of
# REPO_FILES tracked files, each edit changing a few lines, as an agent does. Prints the growth
# of .git/objects (loose, as written), after `git gc` packs them, and the time per edit hook.
# Usage: bench/snapshots.sh                 (from the repository root; builds git-dibs first)
#        EDITS=500 FILES_TOUCHED=50 REPO_FILES=6000 PROFILE=release bench/snapshots.sh
# Needs: git, cargo, python3.
set -euo pipefail

REPO_ROOT=$(git rev-parse --show-toplevel)
EDITS=${EDITS:-500}
FILES_TOUCHED=${FILES_TOUCHED:-50}
REPO_FILES=${REPO_FILES:-6000}
PROFILE=${PROFILE:-release}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dibs-snapbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
unset CARGO_TARGET_DIR CLAUDE_CODE_SESSION_ID DIBS_SESSION

(cd "$REPO_ROOT" && cargo build --quiet $([ "$PROFILE" = release ] && echo --release))
DIBS="$REPO_ROOT/target/$(rustc --print host-tuple)/$PROFILE/git-dibs"

repo="$WORK/repo"
git init -q -b main "$repo"
python3 - "$repo" "$REPO_FILES" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "src", f"m{i // 100:03d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i % 100:02d}.rs"), "w") as f:
        f.write("".join(f"pub fn f{i}_{l}() -> u32 {{ {l} }}\n" for l in range(300))[:10240])
PY
git -C "$repo" add -A && git -C "$repo" commit -qm "$REPO_FILES files"
git -C "$repo" gc -q
kib() { du -sk "$1" | cut -f1; }
before=$(kib "$repo/.git/objects")

start=$(date +%s%N)
python3 - "$repo" "$DIBS" "$EDITS" "$FILES_TOUCHED" <<'PY'
import json, os, subprocess, sys
root, dibs, edits, touched = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for e in range(edits):
    i = (e * 7919) % touched
    path = os.path.join(root, "src", f"m{i // 100:03d}", f"f{i % 100:02d}.rs")
    lines = open(path).read().split("\n")
    k = (e * 31) % max(1, len(lines) - 1)
    lines[k] = f"// edit {e} " + lines[k]
    open(path, "w").write("\n".join(lines))
    event = {"session_id": "busy-session", "cwd": root, "hook_event_name": "PostToolUse",
             "tool_name": "Edit", "tool_input": {"file_path": path, "old_string": "a",
             "new_string": "b"}, "tool_response": {"filePath": path}}
    run = subprocess.run([dibs, "hook"], input=json.dumps(event).encode(), cwd=root,
                         capture_output=True)
    if run.returncode != 0 or run.stderr:
        sys.exit(f"edit {e}: exit {run.returncode} {run.stderr!r}")
PY
end=$(date +%s%N)
loose=$(kib "$repo/.git/objects")
count=$(git -C "$repo" rev-list --count refs/dibs/snapshots/busy-session)
git -C "$repo" gc -q
packed=$(kib "$repo/.git/objects")
echo "repository: $REPO_FILES tracked files of about 10 KB ($before KiB of objects, packed)"
echo "one session: $EDITS edits of $FILES_TOUCHED files of 10 KB: $count snapshots"
echo "  objects grew by $((loose - before)) KiB as written (loose), $((packed - before)) KiB after git gc"
echo "  $(( (end - start) / EDITS / 1000 )) µs per Edit PostToolUse hook (whole process, from python)"
