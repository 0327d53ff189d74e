"""The `gpu-advisor` command line: the entry point, shared argument types, one module per command."""
