"""The pages people look at: the run gallery, the post-run checks and the reference-pool workbench."""
