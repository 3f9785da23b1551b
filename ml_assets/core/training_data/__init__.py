"""What training reads: features, label vocabularies, the tokenized corpus, batches."""
