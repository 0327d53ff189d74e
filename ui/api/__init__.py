"""The versioned HTTP API and the MCP server over one set of operations."""
