"""`python -m client` and the `mcp-chat` entry point; the CLI lives in client/ui/cli.py."""

from client.ui.cli import entry, main

__all__ = ["entry", "main"]

if __name__ == "__main__":
    entry()
