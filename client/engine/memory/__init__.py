"""Long-term memory across threads (seed 004): policy (pure), extract (requests), manager."""
