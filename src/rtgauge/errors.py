"""Errors that end a command with one clear line: exit code 2 for bad input,
exit code 3 for a run the world did not allow (nothing to fix in the command)."""


class UsageError(Exception):
    """Bad input: the message is shown as it is, and the exit code is 2."""


class RunError(Exception):
    """The command was right but the run could not happen or went on no further
    (a board held by someone else, a lost coordinator): one line, exit code 3."""
