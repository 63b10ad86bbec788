//! The word lists behind the read-only judgement of one-liner code.

/// Words that name a power to destroy or to run code, in any of the languages (raw text).
#[rustfmt::skip]
pub(super) const DENY_ANY: &[&str] = &[
    "eval", "exec", "system", "popen", "spawn", "fork", "kill", "unlink", "remove", "rmtree",
    "rmdir", "removedirs", "rename", "renames", "truncate", "chmod", "chown", "symlink", "link",
    "mkdir", "makedirs", "syscall", "shutil", "subprocess", "ctypes", "importlib", "pathlib",
    "getattr", "setattr", "delattr", "globals", "locals", "vars", "breakpoint", "builtins", "pty",
    "posix", "child_process", "execSync", "execFile", "execFileSync", "spawnSync", "rm", "rmSync",
    "rmdirSync", "unlinkSync", "renameSync", "writeFile", "writeFileSync", "appendFile",
    "appendFileSync", "truncateSync", "openSync", "createWriteStream", "copyFile", "copyFileSync",
    "cpSync", "symlinkSync", "linkSync", "chmodSync", "chownSync", "mkdirSync", "utimes",
    "utimesSync", "qx", "sysopen", "readpipe", "rm_rf", "rm_r", "remove_tree", "CORE", "POSIX",
    "IPC", "utime", "trap", "at_exit", "syswrite", "dbmopen", "fdopen", "startfile", "dup2",
    "mkfifo", "mknod", "chroot", "putenv", "write_text", "write_bytes", "reopen", "writeReport",
];

/// Further words for JavaScript: what reaches the global object, modules or code at run time.
#[rustfmt::skip]
pub(super) const DENY_JS: &[&str] = &[
    "Function", "constructor", "prototype", "globalThis", "global", "module", "mainModule",
    "binding", "dlopen", "Reflect", "Proxy", "WebAssembly", "import", "Deno", "Bun", "vm",
    "worker_threads", "Worker", "with", "promises", "setPrototypeOf", "defineProperty",
];

/// Further words for perl: files it runs or opens, modules that move or copy.
#[rustfmt::skip]
pub(super) const DENY_PERL: &[&str] = &[
    "do", "require", "open", "move", "copy", "tie", "pipe", "glob",
];

/// Further words for ruby: dynamic dispatch, code at run time, the classes that write.
#[rustfmt::skip]
pub(super) const DENY_RUBY: &[&str] = &[
    "require_relative", "load", "autoload", "send", "public_send", "method", "define_method",
    "instance_eval", "class_eval", "module_eval", "instance_exec", "const_get", "ObjectSpace",
    "FileUtils", "Pathname", "Process", "Open3", "Kernel", "PTY", "IO", "Signal", "binding",
    "delete", "TOPLEVEL_BINDING", "set_trace_func", "Marshal", "public_method", "instance_method",
    "singleton_method", "to_sym", "intern", "method_missing",
];

/// Python modules with nothing that deletes, writes or runs (listed members of `os`/`sys`).
#[rustfmt::skip]
pub(super) const PY_MODULES: &[&str] = &[
    "sys", "os", "json", "re", "math", "collections", "itertools", "functools", "datetime",
    "time", "platform", "string", "textwrap", "pprint", "statistics", "random", "hashlib",
    "base64", "glob", "fnmatch", "locale", "unicodedata", "struct", "decimal", "fractions",
    "typing", "dataclasses", "enum", "uuid", "difflib", "heapq", "bisect", "calendar", "html",
    "shlex", "tomllib", "csv", "zlib", "binascii",
];

/// Members of `os` that only read.
#[rustfmt::skip]
pub(super) const PY_OS: &[&str] = &[
    "getcwd", "path", "environ", "getenv", "listdir", "sep", "linesep", "name", "getpid",
    "getppid", "getuid", "getgid", "geteuid", "cpu_count", "stat", "lstat", "walk", "scandir",
    "access", "uname", "getlogin", "pathsep", "devnull", "curdir", "pardir", "get_terminal_size",
    "fspath", "fsencode", "fsdecode", "isatty", "urandom", "times", "getloadavg", "extsep",
    "altsep", "R_OK", "W_OK", "X_OK", "F_OK",
];

/// Functions of `os.path` (none writes).
#[rustfmt::skip]
pub(super) const PY_OS_PATH: &[&str] = &[
    "join", "exists", "lexists", "isfile", "isdir", "islink", "isabs", "ismount", "basename",
    "dirname", "abspath", "realpath", "relpath", "normpath", "normcase", "splitext", "split",
    "getsize", "getmtime", "getatime", "getctime", "expanduser", "expandvars", "commonpath",
    "commonprefix", "samefile", "sep",
];

/// Members of `sys` that only read (or print, or exit).
#[rustfmt::skip]
pub(super) const PY_SYS: &[&str] = &[
    "argv", "stdin", "stdout", "stderr", "version", "version_info", "platform",
    "executable", "maxsize", "byteorder", "getdefaultencoding", "getfilesystemencoding",
    "getrecursionlimit", "exit", "implementation", "prefix", "base_prefix", "flags", "hexversion",
    "float_info", "getsizeof", "maxunicode",
];

/// Modules a JavaScript one-liner may `require`.
#[rustfmt::skip]
pub(super) const JS_MODULES: &[&str] = &[
    "fs", "path", "os", "util", "node:fs", "node:path", "node:os", "node:util",
];

/// Members of `fs` that only read.
#[rustfmt::skip]
pub(super) const JS_FS: &[&str] = &[
    "readFileSync", "readdirSync", "existsSync", "statSync", "lstatSync", "readFile", "readdir",
    "stat", "lstat", "realpathSync", "accessSync", "constants", "readlinkSync",
];

/// Members of `process` that only read (or print, or exit).
#[rustfmt::skip]
pub(super) const JS_PROCESS: &[&str] = &[
    "argv", "env", "cwd", "version", "versions", "platform", "arch", "exit", "stdout", "stderr",
    "stdin", "pid", "ppid", "uptime", "memoryUsage", "hrtime", "exitCode", "execPath", "release",
    "nextTick", "on", "title",
];

/// Perl barewords that only compute, read or print.
#[rustfmt::skip]
pub(super) const PERL_WORDS: &[&str] = &[
    "print", "printf", "say", "if", "unless", "else", "elsif", "and", "or", "not", "xor", "while",
    "until", "for", "foreach", "next", "last", "redo", "return", "my", "our", "local", "defined",
    "undef", "length", "substr", "index", "rindex", "uc", "lc", "ucfirst", "lcfirst", "chomp",
    "chop", "chr", "ord", "sprintf", "join", "split", "reverse", "sort", "keys", "values", "each",
    "exists", "push", "pop", "shift", "unshift", "splice", "map", "grep", "scalar", "wantarray",
    "abs", "int", "sqrt", "hex", "oct", "rand", "srand", "time", "localtime", "gmtime", "eq",
    "ne", "lt", "gt", "le", "ge", "cmp", "x", "sub", "STDIN", "STDOUT", "STDERR", "ARGV", "ENV",
    "BEGIN", "END", "exit", "die", "warn", "sum", "sum0", "max", "min", "first", "uniq", "strict",
    "warnings", "utf8", "List", "Util", "Data", "Dumper", "lines", "abs", "lc", "quotemeta",
    "pos", "wait", "sleep", "local", "e", "f", "d", "r", "z", "l", "use", "no", "tr", "y", "m",
    "q", "qq", "qw", "qr", "s", "binmode", "close", "eof", "ref", "bless", "pack", "unpack",
    "vec", "lcfirst", "atan2", "sin", "cos", "exp", "log", "continue", "last", "__END__",
];

/// Ruby constants that only compute, read or print.
#[rustfmt::skip]
pub(super) const RUBY_CONSTANTS: &[&str] = &[
    "ARGV", "ENV", "STDIN", "STDOUT", "STDERR", "ARGF", "Math", "Integer", "Float", "String",
    "Array", "Hash", "JSON", "Time", "Set", "Struct", "Regexp", "Symbol", "Range", "Comparable",
    "Enumerable", "RUBY_VERSION", "RUBY_PLATFORM", "File", "Dir", "Date", "Rational", "Complex",
    "NilClass", "TrueClass", "FalseClass", "Float", "Encoding",
];

/// Members of ruby's `File` and `Dir` that only read.
#[rustfmt::skip]
pub(super) const RUBY_FILE: &[&str] = &[
    "read", "readlines", "exist?", "file?", "directory?", "basename", "dirname", "extname",
    "join", "size", "mtime", "expand_path", "foreach", "readable?", "pwd", "glob", "entries",
    "children", "each_line", "absolute_path", "split", "zero?", "empty?", "symlink?",
];

/// Libraries a ruby one-liner may `require`.
#[rustfmt::skip]
pub(super) const RUBY_LIBS: &[&str] = &[
    "json", "set", "date", "time", "pp", "yaml", "csv", "digest",
];

/// Further words for python 2 (`execfile`, `file(...)` opening for writing, `input()` that
/// evaluates what it reads).
#[rustfmt::skip]
pub(super) const DENY_PY: &[&str] = &["execfile", "file", "input", "reload"];
