"""Where the probe runs: this machine, a QEMU guest, a board over SSH."""
