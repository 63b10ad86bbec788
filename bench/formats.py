#!/usr/bin/env python3
# What the git command path costs in repositories libgit2 cannot open, against an ordinary one:
# an edit's snapshot (Edit PostToolUse of a changed 10 KB file), an everyday Bash PreToolUse
# (`git status`) and a guarded one that reads facts (`git stash` with a live peer's dirty
# file), timed through the real hook in plain, SHA-256, reftable and SHA-256+reftable clones,
# interleaved so machine load hits every format alike.
# Usage: bench/formats.py [BINARY] [RUNS]   (default: the release build, 30 runs)
import json, os, subprocess, sys, time, shutil, statistics, tempfile
B = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "x86_64-unknown-linux-gnu", "release", "git-dibs")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 30
env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
           GIT_COMMITTER_EMAIL="t@t", GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
def git(cwd, *a): subprocess.run(["git", *a], cwd=cwd, env=env, check=True, capture_output=True)
def hook(cwd, ev):
    t = time.perf_counter()
    p = subprocess.run([B, "hook"], cwd=cwd, env=env, input=json.dumps(ev).encode(), capture_output=True)
    return time.perf_counter() - t, p.stdout.decode()
def ev(name, sid, cwd, **kw):
    d = {"hook_event_name": name, "session_id": sid, "cwd": cwd, "transcript_path": "/dev/null"}; d.update(kw); return d
def floor():
    ts = []
    for _ in range(N):
        t = time.perf_counter(); subprocess.run(["/bin/true"]); ts.append(time.perf_counter() - t)
    return statistics.median(ts)
fl = floor()
print(f"floor /bin/true {fl*1000:.2f} ms")
repos = {}
for name, init in [("plain", []), ("sha256", ["--object-format=sha256"]), ("reftable", ["--ref-format=reftable"]),
                   ("both", ["--object-format=sha256", "--ref-format=reftable"])]:
    d = tempfile.mkdtemp(dir=None); root = os.path.join(d, "repo")
    git(d, "init", "-q", "-b", "main", *init, "--bare", "remote.git"); git(d, "init", "-q", "-b", "main", *init, "repo")
    for i in range(200):
        os.makedirs(os.path.join(root, "src", str(i % 10)), exist_ok=True)
        open(os.path.join(root, "src", str(i % 10), f"f{i}.rs"), "w").write("x" * 1000)
    open(os.path.join(root, "a.txt"), "w").write("a\n")
    git(root, "add", "."); git(root, "commit", "-qm", "i"); git(root, "remote", "add", "origin", "../remote.git"); git(root, "push", "-qu", "origin", "main")
    a = os.path.join(root, "a.txt"); open(a, "w").write("peer\n")
    hook(root, ev("PostToolUse", "s1", root, tool_name="Write", tool_input={"file_path": a, "content": "x"}, tool_response={}))
    repos[name] = root
import collections
res = collections.defaultdict(list)
for i in range(N):
    for name, root in repos.items():
        f = os.path.join(root, "big.txt")
        open(f, "w").write(("%06d" % i) + "y" * 10234)
        t, out = hook(root, ev("PostToolUse", "s2", root, tool_name="Write", tool_input={"file_path": f, "content": "x"}, tool_response={}))
        res[(name, "edit post (snapshot 10 KB)")].append(t)
        for label, cmd in [("bash pre `git status`", "git status"), ("bash pre `git stash` (peer dirty)", "git stash")]:
            t, out = hook(root, ev("PreToolUse", "s2", root, tool_name="Bash", tool_input={"command": cmd}))
            if "stash" in cmd: assert "deny" in out, out
            else: assert out == "", out
            res[(name, label)].append(t)
for (name, k), v in sorted(res.items(), key=lambda kv: (kv[0][1], list(repos).index(kv[0][0]))):
    print(f"{name:9} {k:36} min {min(v)*1000:7.2f} ms  median {statistics.median(v)*1000:7.2f} ms")
for r in repos.values(): shutil.rmtree(os.path.dirname(r))
