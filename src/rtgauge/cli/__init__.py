"""One module per command; main.py wires them together."""
