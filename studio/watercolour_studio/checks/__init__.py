"""The post-run checks: six questions a user asks after a short run, answered from its own records."""
