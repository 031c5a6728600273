"""The command line: argument parsing, the subcommands, the runner and its parallel sweeps, the page and the documents."""
