"""The studio commands' exit statuses: 1 is a check that failed, 2 a command that could not do its work."""

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2
