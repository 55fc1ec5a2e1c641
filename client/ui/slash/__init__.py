"""Slash commands: one table (table.py) of handlers (threads.py, context.py, mcp.py) that get a
SlashContext (base.py). Import the modules themselves; this file stays empty so that the package
and its modules never import each other in a circle."""
