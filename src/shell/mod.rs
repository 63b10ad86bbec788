//! Parsing a shell command line into simple commands (argv, redirections, the directory each
//! runs in), with wrappers peeled off.
