"""How good a model is and whether it ships: metrics, comparison, gates, promotion, pictures."""
