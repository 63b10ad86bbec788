//! The option grammars of the less common wrappers (`chronic`, `busybox`, `taskset`, `chrt`,
//! `unshare`, `strace`, `runuser`, ...), and the wrappers whose options are not modelled.

use super::wrappers::Spec;

/// Wrappers that run the rest of their argv as a command after their options and `skip`
/// operands (a CPU mask, a priority, a time).
pub(super) fn simple_wrapper(name: &str) -> Option<(Spec, usize)> {
    let none = Spec {
        short_arg: "",
        short_opt_arg: "",
        long_arg: &[],
    };
    Some(match name {
        // moreutils `chronic`, expect's `unbuffer`, `eatmydata`, `nocache`, `catchsegv`.
        "chronic" | "unbuffer" | "eatmydata" | "nocache" | "catchsegv" => (none, 0),
        // `busybox APPLET ARGS` (and toybox's): the applet is the command.
        "busybox" | "toybox" => (none, 0),
        "taskset" => (
            Spec {
                short_arg: "",
                short_opt_arg: "",
                long_arg: &[],
            },
            1,
        ),
        "chrt" => (
            Spec {
                short_arg: "TPD",
                short_opt_arg: "",
                long_arg: &["sched-runtime", "sched-period", "sched-deadline"],
            },
            1,
        ),
        "faketime" => (
            Spec {
                short_arg: "p",
                short_opt_arg: "",
                long_arg: &[],
            },
            1,
        ),
        "unshare" => (
            Spec {
                short_arg: "SGRwl",
                short_opt_arg: "",
                long_arg: &["setuid", "setgid", "root", "wd", "propagation", "setgroups"],
            },
            0,
        ),
        "strace" | "ltrace" => (
            Spec {
                short_arg: "oeEpPusSbaIXAnl",
                short_opt_arg: "",
                long_arg: &["output", "trace", "signal", "attach", "user", "env"],
            },
            0,
        ),
        "numactl" => (
            Spec {
                short_arg: "NmCpiPw",
                short_opt_arg: "",
                long_arg: &[
                    "cpunodebind",
                    "membind",
                    "physcpubind",
                    "preferred",
                    "interleave",
                ],
            },
            0,
        ),
        "prlimit" => (
            Spec {
                short_arg: "po",
                short_opt_arg: "cdefilmnqrstuvxy",
                long_arg: &["pid", "output"],
            },
            0,
        ),
        "runuser" => (
            Spec {
                short_arg: "ugGwl",
                short_opt_arg: "",
                long_arg: &["user", "group", "supp-group", "whitelist-environment"],
            },
            0,
        ),
        "torsocks" => (
            Spec {
                short_arg: "aPup",
                short_opt_arg: "",
                long_arg: &["address", "port", "user", "pass"],
            },
            0,
        ),
        "proxychains" | "proxychains4" => (
            Spec {
                short_arg: "f",
                short_opt_arg: "",
                long_arg: &[],
            },
            0,
        ),
        "caffeinate" => (
            Spec {
                short_arg: "tw",
                short_opt_arg: "",
                long_arg: &[],
            },
            0,
        ),
        "fakeroot" => (
            Spec {
                short_arg: "lsi",
                short_opt_arg: "",
                long_arg: &["lib", "faked"],
            },
            0,
        ),
        _ => return None,
    })
}

/// Wrappers whose options are not modelled: the command they run is taken from the first word
/// naming a program the guard judges, and judged as unknown.
pub(super) const LOOSE_WRAPPERS: &[&str] = &[
    "systemd-run",
    "setpriv",
    "sg",
    "firejail",
    "bwrap",
    "nsenter",
    "proot",
    "arch",
    "cgexec",
    "schroot",
    "with-lock-ex",
    "lockf",
    "nq",
    "tsp",
    "dbus-run-session",
    "xvfb-run",
];

/// Programs a loose wrapper may be running.
pub(super) const JUDGED: &[&str] = &[
    "git", "rm", "mv", "find", "rsync", "tar", "unlink", "rmdir", "shred", "ln", "xargs", "sh",
    "bash", "zsh", "dash", "ksh", "env", "sudo", "python", "python3", "perl", "node", "ruby",
    "make", "gh", "truncate", "cp", "gzip", "bzip2", "xz", "zstd", "zip", "7z", "rename",
];
