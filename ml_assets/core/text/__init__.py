"""Text as the models see it: normalization, the pruned vocabulary, tokenizer folders, backbones."""
