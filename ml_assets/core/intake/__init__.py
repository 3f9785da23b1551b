"""Reading bank exports: formats, layouts, encodings, the raw days, quarantine."""
