"""Seeded transaction generators: the built-in demo data and a harder benchmark."""
