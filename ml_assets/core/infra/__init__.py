"""Plumbing: verified artifact IO, transfers, attempt records, processes, GPU cost, code versions."""
