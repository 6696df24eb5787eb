"""The dock panels: each wires its inputs to a services job run in a worker."""
