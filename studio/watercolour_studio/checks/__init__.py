"""The post-run checks: seven questions a user asks after a short run, answered from its own records."""
