"""mcp-chat: the terminal chat client."""

__version__ = "0.1.0"
