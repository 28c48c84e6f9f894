"""The post-run checks: five questions a user asks after a short run, answered from its own records."""
