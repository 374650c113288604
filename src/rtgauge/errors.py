"""Errors that end a command with one clear line and exit code 2."""


class UsageError(Exception):
    """Bad input: the message is shown as it is, and the exit code is 2."""
