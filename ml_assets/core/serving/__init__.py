"""Scoring with the exported model, its inputs and outputs, and latency measured fairly."""
