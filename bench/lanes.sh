#!/usr/bin/env bash
# What a lane costs, measured:
#   1. disk per lane (the lane's folder plus its administrative entry in .git/worktrees) and the
#      time of `git dibs lane new`, for a clone of this repository and for a larger repository
#      built here for the purpose (FILES files of FILE_KB KiB each, in a few commits);
#   2. a cold `cargo build` in a new lane of this repository: with its own target folder, and
#      with `lane new --shared-target` after the main worktree has been built once (lanes kept
#      outside the main worktree: see the note at that step).
# Usage: bench/lanes.sh            (from the repository root; builds git-dibs first)
#        FILES=20000 FILE_KB=4 SKIP_CARGO=1 bench/lanes.sh
# Needs: git, cargo (dependencies already in the cargo cache: builds run with --offline), python3.
set -euo pipefail

REPO_ROOT=$(git rev-parse --show-toplevel)
FILES=${FILES:-20000}
FILE_KB=${FILE_KB:-4}
PROFILE=${PROFILE:-debug}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dibs-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
export DIBS_SESSION=bench-session
unset CARGO_TARGET_DIR CLAUDE_CODE_SESSION_ID

(cd "$REPO_ROOT" && cargo build --quiet $([ "$PROFILE" = release ] && echo --release))
# .cargo/config.toml builds for the host as an explicit target: output is under target/<host tuple>/.
DIBS="$REPO_ROOT/target/$(rustc --print host-tuple)/$PROFILE/git-dibs"

now_ms() { date +%s%3N; }
kib() { du -sk "$1" | cut -f1; }

# Print one disk line for lane NAME of the clone at $1.
measure_lane() {
    local clone=$1 name=$2 label=$3 t0 t1 path admin
    t0=$(now_ms)
    path=$(cd "$clone" && "$DIBS" lane new "$name" 2>/dev/null)
    t1=$(now_ms)
    admin="$clone/.git/worktrees/$name"
    printf '%-28s lane folder %8s KiB  admin entry %6s KiB  (tracked files %s, .git %s KiB)  lane new %s ms\n' \
        "$label" "$(kib "$path")" "$(kib "$admin")" \
        "$(git -C "$path" ls-files | wc -l)" "$(kib "$clone/.git")" "$((t1 - t0))"
}

echo "== disk per lane"
git clone --quiet --no-hardlinks "$REPO_ROOT" "$WORK/this"
git -C "$WORK/this" remote set-url origin "$WORK/this-remote.git"
git clone --quiet --bare "$WORK/this" "$WORK/this-remote.git"
git -C "$WORK/this" fetch --quiet origin
git -C "$WORK/this" branch --quiet --set-upstream-to=origin/"$(git -C "$WORK/this" branch --show-current)"
measure_lane "$WORK/this" bench "this repository"

mkdir -p "$WORK/big"
git -C "$WORK/big" init --quiet -b main
git -C "$WORK/big" config gc.auto 0   # no background gc racing the clone below
python3 - "$WORK/big" "$FILES" "$FILE_KB" <<'EOF'
import os, random, sys
root, files, kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(7)
words = ["lane", "claim", "dibs", "worktree", "commit", "branch", "retain", "guard", "hook"]
for i in range(files):
    d = os.path.join(root, "src", f"m{i // 200:03}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:05}.rs"), "w") as f:
        line = " ".join(rnd.choice(words) for _ in range(12)) + "\n"
        f.write(line * (kb * 1024 // len(line)))
EOF
git -C "$WORK/big" add -A
git -C "$WORK/big" commit --quiet -m "big tree"
for n in 1 2 3; do
    find "$WORK/big/src" -name "f*${n}.rs" -exec sh -c 'echo "// change '"$n"'" >> "$1"' _ {} \;
    git -C "$WORK/big" commit --quiet -am "change $n"
done
git clone --quiet --bare "$WORK/big" "$WORK/big-remote.git"
git -C "$WORK/big" remote add origin "$WORK/big-remote.git"
git -C "$WORK/big" fetch --quiet origin
git -C "$WORK/big" branch --quiet --set-upstream-to=origin/main
measure_lane "$WORK/big" bench "generated ($FILES x ${FILE_KB} KiB)"

[ "${SKIP_CARGO:-}" = 1 ] && exit 0

echo "== cold cargo build in a new lane of this repository (cargo build --offline, $PROFILE)"
cd "$WORK/this"
# This repository's .cargo/config.toml sets rustflags (static linking); a lane inside the main
# worktree would read it twice (its copy and the main worktree's), and cargo joins the two, so a
# shared target would be rebuilt rather than reused (`lane new` warns). Lanes outside it:
git config dibs.worktreesDir "$WORK/this-lanes"
build_in() {
    local dir=$1 t0 t1
    t0=$(now_ms)
    (cd "$dir" && cargo build --offline --quiet)
    t1=$(now_ms)
    echo "$((t1 - t0))"
}
own=$("$DIBS" lane new own-target 2>/dev/null)
printf '%-44s %6s ms  (target folder %s MiB)\n' "lane with its own target folder:" \
    "$(build_in "$own")" "$(( $(kib "$own/target") / 1024 ))"
printf '%-44s %6s ms\n' "main worktree (fills the shared target):" "$(build_in "$WORK/this")"
shared=$("$DIBS" lane new shared --shared-target 2>/dev/null)
before=$(kib "$WORK/this/target")
printf '%-44s %6s ms  (shared target grew by %s MiB)\n' "lane with --shared-target:" \
    "$(build_in "$shared")" "$(( ($(kib "$WORK/this/target") - before) / 1024 ))"
